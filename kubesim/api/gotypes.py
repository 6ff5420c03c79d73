"""The Go struct layouts that ``json.Marshal`` walks when the API server prints one of its objects.

Validation in kubernetes/kubernetes v1.35 runs on the *internal* types (``pkg/apis/core/types.go``,
``pkg/apis/apps/types.go``, ``pkg/apis/policy/types.go``), which carry no ``json`` tags: a bad
value that a field error prints (``field.Error.ErrorBody``) and the ``diff.Diff`` of a refused
update are keyed by the Go field names, in declaration order, every field present. A few
external types appear inside them (``metav1.LabelSelector``, ``metav1.ObjectMeta``,
``metav1.OwnerReference``: ``k8s.io/apimachinery/pkg/apis/meta/v1/types.go``) and keep their
``json`` tags. ``kubesim.api.gojson`` reads this table.

Format: a type's name on a line of its own (``json`` after it for a type with tags), then one
indented line per field, in declaration order:

- internal type: ``GoName type [v1-key]``; the v1 key, the field's name in kubesim's (v1 JSON)
  objects, is given only where it is not GoName with its leading capitals lowered
  (``HostIP`` -> ``hostIP``, ``DNSPolicy`` -> ``dnsPolicy``, ``TTY`` -> ``tty``);
- type with tags: ``json-key type [omitempty] [omitzero]``;
- ``...Type [v1-key]``: an embedded struct, whose fields encoding/json promotes into this one;
  kubesim's object has them inline too, or, with a v1 key, under that key (v1
  ``PersistentVolumeClaimTemplate`` has its ``ObjectMeta`` as ``metadata``).

Types: ``string``, ``int`` (any integer kind), ``bool``, ``float``, ``Quantity``
(``resource.Quantity``), ``IntOrString``, ``Time`` (``metav1.Time``), ``FieldsV1``, a struct of
this table, and ``*T``, ``[]T``, ``map[string]T`` of those. Named string types (``RestartPolicy``,
``ResourceName``) are ``string``.

The fields were listed from the v1.35.4 types with Go's ``reflect`` and checked against the
``k8s.io/api`` v1 types for the v1 keys. Not in the table: ``PodSecurityContext``'s host fields
(``HostNetwork`` ...) are v1 ``PodSpec`` fields, which ``gojson`` moves in as
``Convert_v1_PodSpec_To_core_PodSpec`` does (``pkg/apis/core/v1/conversion.go``).
"""

LAYOUTS = """\
PodSpec
    Volumes []Volume
    InitContainers []Container
    Containers []Container
    EphemeralContainers []EphemeralContainer
    RestartPolicy string
    TerminationGracePeriodSeconds *int
    ActiveDeadlineSeconds *int
    DNSPolicy string
    NodeSelector map[string]string
    ServiceAccountName string
    AutomountServiceAccountToken *bool
    NodeName string
    SecurityContext *PodSecurityContext
    ImagePullSecrets []LocalObjectReference
    Hostname string
    Subdomain string
    SetHostnameAsFQDN *bool
    Affinity *Affinity
    SchedulerName string
    Tolerations []Toleration
    HostAliases []HostAlias
    PriorityClassName string
    Priority *int
    PreemptionPolicy *string
    DNSConfig *PodDNSConfig
    ReadinessGates []PodReadinessGate
    RuntimeClassName *string
    Overhead map[string]Quantity
    EnableServiceLinks *bool
    TopologySpreadConstraints []TopologySpreadConstraint
    OS *PodOS
    SchedulingGates []PodSchedulingGate
    ResourceClaims []PodResourceClaim
    Resources *ResourceRequirements
    HostnameOverride *string
    WorkloadRef *WorkloadReference
Volume
    Name string
    ...VolumeSource
VolumeSource
    HostPath *HostPathVolumeSource
    EmptyDir *EmptyDirVolumeSource
    GCEPersistentDisk *GCEPersistentDiskVolumeSource
    AWSElasticBlockStore *AWSElasticBlockStoreVolumeSource
    GitRepo *GitRepoVolumeSource
    Secret *SecretVolumeSource
    NFS *NFSVolumeSource
    ISCSI *ISCSIVolumeSource
    Glusterfs *GlusterfsVolumeSource
    PersistentVolumeClaim *PersistentVolumeClaimVolumeSource
    RBD *RBDVolumeSource
    Quobyte *QuobyteVolumeSource
    FlexVolume *FlexVolumeSource
    Cinder *CinderVolumeSource
    CephFS *CephFSVolumeSource cephfs
    Flocker *FlockerVolumeSource
    DownwardAPI *DownwardAPIVolumeSource
    FC *FCVolumeSource
    AzureFile *AzureFileVolumeSource
    ConfigMap *ConfigMapVolumeSource
    VsphereVolume *VsphereVirtualDiskVolumeSource
    AzureDisk *AzureDiskVolumeSource
    PhotonPersistentDisk *PhotonPersistentDiskVolumeSource
    Projected *ProjectedVolumeSource
    PortworxVolume *PortworxVolumeSource
    ScaleIO *ScaleIOVolumeSource
    StorageOS *StorageOSVolumeSource storageos
    CSI *CSIVolumeSource
    Ephemeral *EphemeralVolumeSource
    Image *ImageVolumeSource
HostPathVolumeSource
    Path string
    Type *string
EmptyDirVolumeSource
    Medium string
    SizeLimit *Quantity
GCEPersistentDiskVolumeSource
    PDName string
    FSType string
    Partition int
    ReadOnly bool
AWSElasticBlockStoreVolumeSource
    VolumeID string
    FSType string
    Partition int
    ReadOnly bool
GitRepoVolumeSource
    Repository string
    Revision string
    Directory string
SecretVolumeSource
    SecretName string
    Items []KeyToPath
    DefaultMode *int
    Optional *bool
KeyToPath
    Key string
    Path string
    Mode *int
NFSVolumeSource
    Server string
    Path string
    ReadOnly bool
ISCSIVolumeSource
    TargetPortal string
    IQN string
    Lun int
    ISCSIInterface string
    FSType string
    ReadOnly bool
    Portals []string
    DiscoveryCHAPAuth bool chapAuthDiscovery
    SessionCHAPAuth bool chapAuthSession
    SecretRef *LocalObjectReference
    InitiatorName *string
LocalObjectReference
    Name string
GlusterfsVolumeSource
    EndpointsName string endpoints
    Path string
    ReadOnly bool
PersistentVolumeClaimVolumeSource
    ClaimName string
    ReadOnly bool
RBDVolumeSource
    CephMonitors []string monitors
    RBDImage string image
    FSType string
    RBDPool string pool
    RadosUser string user
    Keyring string
    SecretRef *LocalObjectReference
    ReadOnly bool
QuobyteVolumeSource
    Registry string
    Volume string
    ReadOnly bool
    User string
    Group string
    Tenant string
FlexVolumeSource
    Driver string
    FSType string
    SecretRef *LocalObjectReference
    ReadOnly bool
    Options map[string]string
CinderVolumeSource
    VolumeID string
    FSType string
    ReadOnly bool
    SecretRef *LocalObjectReference
CephFSVolumeSource
    Monitors []string
    Path string
    User string
    SecretFile string
    SecretRef *LocalObjectReference
    ReadOnly bool
FlockerVolumeSource
    DatasetName string
    DatasetUUID string
DownwardAPIVolumeSource
    Items []DownwardAPIVolumeFile
    DefaultMode *int
DownwardAPIVolumeFile
    Path string
    FieldRef *ObjectFieldSelector
    ResourceFieldRef *ResourceFieldSelector
    Mode *int
ObjectFieldSelector
    APIVersion string
    FieldPath string
ResourceFieldSelector
    ContainerName string
    Resource string
    Divisor Quantity
FCVolumeSource
    TargetWWNs []string
    Lun *int
    FSType string
    ReadOnly bool
    WWIDs []string wwids
AzureFileVolumeSource
    SecretName string
    ShareName string
    ReadOnly bool
ConfigMapVolumeSource
    ...LocalObjectReference
    Items []KeyToPath
    DefaultMode *int
    Optional *bool
VsphereVirtualDiskVolumeSource
    VolumePath string
    FSType string
    StoragePolicyName string
    StoragePolicyID string
AzureDiskVolumeSource
    DiskName string
    DataDiskURI string diskURI
    CachingMode *string
    FSType *string
    ReadOnly *bool
    Kind *string
PhotonPersistentDiskVolumeSource
    PdID string
    FSType string
ProjectedVolumeSource
    Sources []VolumeProjection
    DefaultMode *int
VolumeProjection
    Secret *SecretProjection
    DownwardAPI *DownwardAPIProjection
    ConfigMap *ConfigMapProjection
    ServiceAccountToken *ServiceAccountTokenProjection
    ClusterTrustBundle *ClusterTrustBundleProjection
    PodCertificate *PodCertificateProjection
SecretProjection
    ...LocalObjectReference
    Items []KeyToPath
    Optional *bool
DownwardAPIProjection
    Items []DownwardAPIVolumeFile
ConfigMapProjection
    ...LocalObjectReference
    Items []KeyToPath
    Optional *bool
ServiceAccountTokenProjection
    Audience string
    ExpirationSeconds int
    Path string
ClusterTrustBundleProjection
    Name *string
    SignerName *string
    LabelSelector *LabelSelector
    Optional *bool
    Path string
LabelSelector json
    matchLabels map[string]string omitempty
    matchExpressions []LabelSelectorRequirement omitempty
LabelSelectorRequirement json
    key string
    operator string
    values []string omitempty
PodCertificateProjection
    SignerName string
    KeyType string
    MaxExpirationSeconds *int
    CredentialBundlePath string
    KeyPath string
    CertificateChainPath string
    UserAnnotations map[string]string
PortworxVolumeSource
    VolumeID string
    FSType string
    ReadOnly bool
ScaleIOVolumeSource
    Gateway string
    System string
    SecretRef *LocalObjectReference
    SSLEnabled bool
    ProtectionDomain string
    StoragePool string
    StorageMode string
    VolumeName string
    FSType string
    ReadOnly bool
StorageOSVolumeSource
    VolumeName string
    VolumeNamespace string
    FSType string
    ReadOnly bool
    SecretRef *LocalObjectReference
CSIVolumeSource
    Driver string
    ReadOnly *bool
    FSType *string
    VolumeAttributes map[string]string
    NodePublishSecretRef *LocalObjectReference
EphemeralVolumeSource
    VolumeClaimTemplate *PersistentVolumeClaimTemplate
PersistentVolumeClaimTemplate
    ...ObjectMeta metadata
    Spec PersistentVolumeClaimSpec
ObjectMeta json
    name string omitempty
    generateName string omitempty
    namespace string omitempty
    selfLink string omitempty
    uid string omitempty
    resourceVersion string omitempty
    generation int omitempty
    creationTimestamp Time omitempty omitzero
    deletionTimestamp *Time omitempty
    deletionGracePeriodSeconds *int omitempty
    labels map[string]string omitempty
    annotations map[string]string omitempty
    ownerReferences []OwnerReference omitempty
    finalizers []string omitempty
    managedFields []ManagedFieldsEntry omitempty
OwnerReference json
    apiVersion string
    kind string
    name string
    uid string
    controller *bool omitempty
    blockOwnerDeletion *bool omitempty
ManagedFieldsEntry json
    manager string omitempty
    operation string omitempty
    apiVersion string omitempty
    time *Time omitempty
    fieldsType string omitempty
    fieldsV1 *FieldsV1 omitempty
    subresource string omitempty
PersistentVolumeClaimSpec
    AccessModes []string
    Selector *LabelSelector
    Resources VolumeResourceRequirements
    VolumeName string
    StorageClassName *string
    VolumeMode *string
    DataSource *TypedLocalObjectReference
    DataSourceRef *TypedObjectReference
    VolumeAttributesClassName *string
VolumeResourceRequirements
    Limits map[string]Quantity
    Requests map[string]Quantity
TypedLocalObjectReference
    APIGroup *string
    Kind string
    Name string
TypedObjectReference
    APIGroup *string
    Kind string
    Name string
    Namespace *string
ImageVolumeSource
    Reference string
    PullPolicy string
Container
    Name string
    Image string
    Command []string
    Args []string
    WorkingDir string
    Ports []ContainerPort
    EnvFrom []EnvFromSource
    Env []EnvVar
    Resources ResourceRequirements
    ResizePolicy []ContainerResizePolicy
    RestartPolicy *string
    RestartPolicyRules []ContainerRestartRule
    VolumeMounts []VolumeMount
    VolumeDevices []VolumeDevice
    LivenessProbe *Probe
    ReadinessProbe *Probe
    StartupProbe *Probe
    Lifecycle *Lifecycle
    TerminationMessagePath string
    TerminationMessagePolicy string
    ImagePullPolicy string
    SecurityContext *SecurityContext
    Stdin bool
    StdinOnce bool
    TTY bool
ContainerPort
    Name string
    HostPort int
    ContainerPort int
    Protocol string
    HostIP string
EnvFromSource
    Prefix string
    ConfigMapRef *ConfigMapEnvSource
    SecretRef *SecretEnvSource
ConfigMapEnvSource
    ...LocalObjectReference
    Optional *bool
SecretEnvSource
    ...LocalObjectReference
    Optional *bool
EnvVar
    Name string
    Value string
    ValueFrom *EnvVarSource
EnvVarSource
    FieldRef *ObjectFieldSelector
    ResourceFieldRef *ResourceFieldSelector
    ConfigMapKeyRef *ConfigMapKeySelector
    SecretKeyRef *SecretKeySelector
    FileKeyRef *FileKeySelector
ConfigMapKeySelector
    ...LocalObjectReference
    Key string
    Optional *bool
SecretKeySelector
    ...LocalObjectReference
    Key string
    Optional *bool
FileKeySelector
    VolumeName string
    Path string
    Key string
    Optional *bool
ResourceRequirements
    Limits map[string]Quantity
    Requests map[string]Quantity
    Claims []ResourceClaim
ResourceClaim
    Name string
    Request string
ContainerResizePolicy
    ResourceName string
    RestartPolicy string
ContainerRestartRule
    Action string
    ExitCodes *ContainerRestartRuleOnExitCodes
ContainerRestartRuleOnExitCodes
    Operator string
    Values []int
VolumeMount
    Name string
    ReadOnly bool
    RecursiveReadOnly *string
    MountPath string
    SubPath string
    MountPropagation *string
    SubPathExpr string
VolumeDevice
    Name string
    DevicePath string
Probe
    ...ProbeHandler
    InitialDelaySeconds int
    TimeoutSeconds int
    PeriodSeconds int
    SuccessThreshold int
    FailureThreshold int
    TerminationGracePeriodSeconds *int
ProbeHandler
    Exec *ExecAction
    HTTPGet *HTTPGetAction
    TCPSocket *TCPSocketAction
    GRPC *GRPCAction
ExecAction
    Command []string
HTTPGetAction
    Path string
    Port IntOrString
    Host string
    Scheme string
    HTTPHeaders []HTTPHeader
HTTPHeader
    Name string
    Value string
TCPSocketAction
    Port IntOrString
    Host string
GRPCAction
    Port int
    Service *string
Lifecycle
    PostStart *LifecycleHandler
    PreStop *LifecycleHandler
    StopSignal *string
LifecycleHandler
    Exec *ExecAction
    HTTPGet *HTTPGetAction
    TCPSocket *TCPSocketAction
    Sleep *SleepAction
SleepAction
    Seconds int
SecurityContext
    Capabilities *Capabilities
    Privileged *bool
    SELinuxOptions *SELinuxOptions
    WindowsOptions *WindowsSecurityContextOptions
    RunAsUser *int
    RunAsGroup *int
    RunAsNonRoot *bool
    ReadOnlyRootFilesystem *bool
    AllowPrivilegeEscalation *bool
    ProcMount *string
    SeccompProfile *SeccompProfile
    AppArmorProfile *AppArmorProfile
Capabilities
    Add []string
    Drop []string
SELinuxOptions
    User string
    Role string
    Type string
    Level string
WindowsSecurityContextOptions
    GMSACredentialSpecName *string
    GMSACredentialSpec *string
    RunAsUserName *string
    HostProcess *bool
SeccompProfile
    Type string
    LocalhostProfile *string
AppArmorProfile
    Type string
    LocalhostProfile *string
EphemeralContainer
    ...EphemeralContainerCommon
    TargetContainerName string
EphemeralContainerCommon
    Name string
    Image string
    Command []string
    Args []string
    WorkingDir string
    Ports []ContainerPort
    EnvFrom []EnvFromSource
    Env []EnvVar
    Resources ResourceRequirements
    ResizePolicy []ContainerResizePolicy
    RestartPolicy *string
    RestartPolicyRules []ContainerRestartRule
    VolumeMounts []VolumeMount
    VolumeDevices []VolumeDevice
    LivenessProbe *Probe
    ReadinessProbe *Probe
    StartupProbe *Probe
    Lifecycle *Lifecycle
    TerminationMessagePath string
    TerminationMessagePolicy string
    ImagePullPolicy string
    SecurityContext *SecurityContext
    Stdin bool
    StdinOnce bool
    TTY bool
PodSecurityContext
    HostNetwork bool
    HostPID bool
    HostIPC bool
    ShareProcessNamespace *bool
    HostUsers *bool
    SELinuxOptions *SELinuxOptions
    WindowsOptions *WindowsSecurityContextOptions
    RunAsUser *int
    RunAsGroup *int
    RunAsNonRoot *bool
    SupplementalGroups []int
    SupplementalGroupsPolicy *string
    FSGroup *int
    FSGroupChangePolicy *string
    Sysctls []Sysctl
    SeccompProfile *SeccompProfile
    AppArmorProfile *AppArmorProfile
    SELinuxChangePolicy *string
Sysctl
    Name string
    Value string
Affinity
    NodeAffinity *NodeAffinity
    PodAffinity *PodAffinity
    PodAntiAffinity *PodAntiAffinity
NodeAffinity
    RequiredDuringSchedulingIgnoredDuringExecution *NodeSelector
    PreferredDuringSchedulingIgnoredDuringExecution []PreferredSchedulingTerm
NodeSelector
    NodeSelectorTerms []NodeSelectorTerm
NodeSelectorTerm
    MatchExpressions []NodeSelectorRequirement
    MatchFields []NodeSelectorRequirement
NodeSelectorRequirement
    Key string
    Operator string
    Values []string
PreferredSchedulingTerm
    Weight int
    Preference NodeSelectorTerm
PodAffinity
    RequiredDuringSchedulingIgnoredDuringExecution []PodAffinityTerm
    PreferredDuringSchedulingIgnoredDuringExecution []WeightedPodAffinityTerm
PodAffinityTerm
    LabelSelector *LabelSelector
    Namespaces []string
    TopologyKey string
    NamespaceSelector *LabelSelector
    MatchLabelKeys []string
    MismatchLabelKeys []string
WeightedPodAffinityTerm
    Weight int
    PodAffinityTerm PodAffinityTerm
PodAntiAffinity
    RequiredDuringSchedulingIgnoredDuringExecution []PodAffinityTerm
    PreferredDuringSchedulingIgnoredDuringExecution []WeightedPodAffinityTerm
Toleration
    Key string
    Operator string
    Value string
    Effect string
    TolerationSeconds *int
HostAlias
    IP string
    Hostnames []string
PodDNSConfig
    Nameservers []string
    Searches []string
    Options []PodDNSConfigOption
PodDNSConfigOption
    Name string
    Value *string
PodReadinessGate
    ConditionType string
TopologySpreadConstraint
    MaxSkew int
    TopologyKey string
    WhenUnsatisfiable string
    LabelSelector *LabelSelector
    MinDomains *int
    NodeAffinityPolicy *string
    NodeTaintsPolicy *string
    MatchLabelKeys []string
PodOS
    Name string
PodSchedulingGate
    Name string
PodResourceClaim
    Name string
    ResourceClaimName *string
    ResourceClaimTemplateName *string
WorkloadReference
    Name string
    PodGroup string
    PodGroupReplicaKey string
PersistentVolumeSource
    GCEPersistentDisk *GCEPersistentDiskVolumeSource
    AWSElasticBlockStore *AWSElasticBlockStoreVolumeSource
    HostPath *HostPathVolumeSource
    Glusterfs *GlusterfsPersistentVolumeSource
    NFS *NFSVolumeSource
    RBD *RBDPersistentVolumeSource
    Quobyte *QuobyteVolumeSource
    ISCSI *ISCSIPersistentVolumeSource
    FlexVolume *FlexPersistentVolumeSource
    Cinder *CinderPersistentVolumeSource
    CephFS *CephFSPersistentVolumeSource cephfs
    FC *FCVolumeSource
    Flocker *FlockerVolumeSource
    AzureFile *AzureFilePersistentVolumeSource
    VsphereVolume *VsphereVirtualDiskVolumeSource
    AzureDisk *AzureDiskVolumeSource
    PhotonPersistentDisk *PhotonPersistentDiskVolumeSource
    PortworxVolume *PortworxVolumeSource
    ScaleIO *ScaleIOPersistentVolumeSource
    Local *LocalVolumeSource
    StorageOS *StorageOSPersistentVolumeSource storageos
    CSI *CSIPersistentVolumeSource
GlusterfsPersistentVolumeSource
    EndpointsName string endpoints
    Path string
    ReadOnly bool
    EndpointsNamespace *string
RBDPersistentVolumeSource
    CephMonitors []string monitors
    RBDImage string image
    FSType string
    RBDPool string pool
    RadosUser string user
    Keyring string
    SecretRef *SecretReference
    ReadOnly bool
SecretReference
    Name string
    Namespace string
ISCSIPersistentVolumeSource
    TargetPortal string
    IQN string
    Lun int
    ISCSIInterface string
    FSType string
    ReadOnly bool
    Portals []string
    DiscoveryCHAPAuth bool chapAuthDiscovery
    SessionCHAPAuth bool chapAuthSession
    SecretRef *SecretReference
    InitiatorName *string
FlexPersistentVolumeSource
    Driver string
    FSType string
    SecretRef *SecretReference
    ReadOnly bool
    Options map[string]string
CinderPersistentVolumeSource
    VolumeID string
    FSType string
    ReadOnly bool
    SecretRef *SecretReference
CephFSPersistentVolumeSource
    Monitors []string
    Path string
    User string
    SecretFile string
    SecretRef *SecretReference
    ReadOnly bool
AzureFilePersistentVolumeSource
    SecretName string
    ShareName string
    ReadOnly bool
    SecretNamespace *string
ScaleIOPersistentVolumeSource
    Gateway string
    System string
    SecretRef *SecretReference
    SSLEnabled bool
    ProtectionDomain string
    StoragePool string
    StorageMode string
    VolumeName string
    FSType string
    ReadOnly bool
LocalVolumeSource
    Path string
    FSType *string
StorageOSPersistentVolumeSource
    VolumeName string
    VolumeNamespace string
    FSType string
    ReadOnly bool
    SecretRef *ObjectReference
ObjectReference
    Kind string
    Namespace string
    Name string
    UID string
    APIVersion string
    ResourceVersion string
    FieldPath string
CSIPersistentVolumeSource
    Driver string
    VolumeHandle string
    ReadOnly bool
    FSType string
    VolumeAttributes map[string]string
    ControllerPublishSecretRef *SecretReference
    NodeStageSecretRef *SecretReference
    NodePublishSecretRef *SecretReference
    ControllerExpandSecretRef *SecretReference
    NodeExpandSecretRef *SecretReference
PodDisruptionBudgetSpec
    MinAvailable *IntOrString
    Selector *LabelSelector
    MaxUnavailable *IntOrString
    UnhealthyPodEvictionPolicy *string
VolumeNodeAffinity
    Required *NodeSelector
Taint
    Key string
    Value string
    Effect string
    TimeAdded *Time
NodeAddress
    Type string
    Address string
DeploymentStrategy
    Type string
    RollingUpdate *RollingUpdateDeployment
RollingUpdateDeployment
    MaxUnavailable IntOrString
    MaxSurge IntOrString
DaemonSetUpdateStrategy
    Type string
    RollingUpdate *RollingUpdateDaemonSet
RollingUpdateDaemonSet
    MaxUnavailable IntOrString
    MaxSurge IntOrString
PodTemplateSpec
    ...ObjectMeta metadata
    Spec PodSpec
PodFailurePolicy
    Rules []PodFailurePolicyRule
PodFailurePolicyRule
    Action string
    OnExitCodes *PodFailurePolicyOnExitCodesRequirement
    OnPodConditions []PodFailurePolicyOnPodConditionsPattern
PodFailurePolicyOnExitCodesRequirement
    ContainerName *string
    Operator string
    Values []int
PodFailurePolicyOnPodConditionsPattern
    Type string
    Status string
SuccessPolicy
    Rules []SuccessPolicyRule
SuccessPolicyRule
    SucceededIndexes *string
    SucceededCount *int
StatefulSetUpdateStrategy
    Type string
    RollingUpdate *RollingUpdateStatefulSetStrategy
RollingUpdateStatefulSetStrategy
    Partition int
    MaxUnavailable *IntOrString
"""
