"""The pod-template hash: ``controller.ComputeHash`` and the spew dump it hashes.

Upstream: pkg/controller/controller_utils.go ``ComputeHash``::

    hasher := fnv.New32a()
    hashutil.DeepHashObject(hasher, *template)      // spew "%#v" of the v1.PodTemplateSpec
    if collisionCount != nil { hasher.Write(little-endian uint32 in 8 bytes) }
    return rand.SafeEncodeString(fmt.Sprint(hasher.Sum32()))

``DeepHashObject`` (pkg/util/hash, via apimachinery pkg/util/dump ``ForHash``) prints the Go value
with go-spew (``SortKeys``, ``DisableMethods``, ``SpewKeys``) and ``%#v``: every field of every
struct in declaration order with its Go type, ``<nil>`` for nil pointers, slices and maps. So the
hash depends on the Go type layout of ``k8s.io/api/core/v1`` in the controller-manager's release:
this module carries that layout for v1.35 (``TYPES``) and renders a JSON pod template the way the
controller sees it after decoding it from the API server (protobuf: an empty list or map is nil,
an empty object in a pointer field is a non-nil empty struct; quantities re-parsed from their
canonical string, ``resource.Quantity``'s cached string included).

Names: ``<deployment>-<hash>`` for ReplicaSets, ``<daemonset>-<hash>`` for ControllerRevisions.

Limits (kubesim simplifies): quantities that need ``inf.Dec`` (more than 18 digits) and non-zero
``metav1.Time`` values inside a template are rendered approximately; they never occur in
templates produced by the usual manifests.
"""

from __future__ import annotations

import re

# ---------------------------------------------------------------------------------------------
# fnv-1a 32 and rand.SafeEncodeString

_FNV_OFFSET = 0x811C9DC5
_FNV_PRIME = 0x01000193
# k8s.io/apimachinery/pkg/util/rand: consonants and digits without vowels or look-alikes
_SAFE_ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789"


def fnv32a(data: bytes, h: int = _FNV_OFFSET) -> int:
    for b in data:
        h ^= b
        h = (h * _FNV_PRIME) & 0xFFFFFFFF
    return h


def safe_encode_string(s: str) -> str:
    """rand.SafeEncodeString: each byte picks ``alphanums[b % len(alphanums)]``."""
    return "".join(_SAFE_ALPHANUMS[b % len(_SAFE_ALPHANUMS)] for b in s.encode())


def compute_hash(template: dict, collision_count: int | None = None) -> str:
    """controller.ComputeHash for a (defaulted) pod template as stored."""
    h = fnv32a(spew_pod_template(template).encode())
    if collision_count is not None:
        h = fnv32a(int(collision_count & 0xFFFFFFFF).to_bytes(4, "little") + b"\x00" * 4, h)
    return safe_encode_string(str(h))


# ---------------------------------------------------------------------------------------------
# the v1.35 Go layout. A type is one of:
#   "string" "bool" "int32" "int64"            Go builtins
#   a key of NAMED                             a named scalar (v1.RestartPolicy -> string)
#   "*T" "[]T" "map[string]string"             pointer, slice, map
#   "v1.ResourceList"                          map[v1.ResourceName]resource.Quantity
#   "resource.Quantity" "intstr.IntOrString" "v1.Time"   special structs
#   a key of TYPES                             a struct: [(GoField, jsonName, type)], jsonName ""
#                                              for an embedded inline struct

NAMED = {
    "types.UID": "string", "v1.RestartPolicy": "string", "v1.DNSPolicy": "string", "v1.PullPolicy": "string",
    "v1.TerminationMessagePolicy": "string", "v1.Protocol": "string", "v1.ResourceName": "string",
    "v1.URIScheme": "string", "v1.Capability": "string", "v1.ProcMountType": "string",
    "v1.SeccompProfileType": "string", "v1.AppArmorProfileType": "string", "v1.TaintEffect": "string",
    "v1.TolerationOperator": "string", "v1.NodeSelectorOperator": "string", "v1.LabelSelectorOperator": "string",
    "v1.UnsatisfiableConstraintAction": "string", "v1.NodeInclusionPolicy": "string",
    "v1.PreemptionPolicy": "string", "v1.PodConditionType": "string", "v1.OSName": "string",
    "v1.ResourceResizeRestartPolicy": "string", "v1.ContainerRestartPolicy": "string",
    "v1.ContainerRestartRuleAction": "string", "v1.ContainerRestartRuleOnExitCodesOperator": "string",
    "v1.Signal": "string", "v1.MountPropagationMode": "string", "v1.RecursiveReadOnlyMode": "string",
    "v1.StorageMedium": "string", "v1.HostPathType": "string", "v1.PersistentVolumeAccessMode": "string",
    "v1.PersistentVolumeMode": "string", "v1.SupplementalGroupsPolicy": "string",
    "v1.PodFSGroupChangePolicy": "string", "v1.PodSELinuxChangePolicy": "string",
    "intstr.Type": "int64", "resource.Scale": "int32", "resource.Format": "string",
}

_META = [
    ("Name", "name", "string"), ("GenerateName", "generateName", "string"),
    ("Namespace", "namespace", "string"), ("SelfLink", "selfLink", "string"), ("UID", "uid", "types.UID"),
    ("ResourceVersion", "resourceVersion", "string"), ("Generation", "generation", "int64"),
    ("CreationTimestamp", "creationTimestamp", "v1.Time"), ("DeletionTimestamp", "deletionTimestamp", "*v1.Time"),
    ("DeletionGracePeriodSeconds", "deletionGracePeriodSeconds", "*int64"),
    ("Labels", "labels", "map[string]string"), ("Annotations", "annotations", "map[string]string"),
    ("OwnerReferences", "ownerReferences", "[]v1.OwnerReference"), ("Finalizers", "finalizers", "[]string"),
    ("ManagedFields", "managedFields", "[]v1.ManagedFieldsEntry"),
]

_CONTAINER = [
    ("Name", "name", "string"), ("Image", "image", "string"), ("Command", "command", "[]string"),
    ("Args", "args", "[]string"), ("WorkingDir", "workingDir", "string"), ("Ports", "ports", "[]v1.ContainerPort"),
    ("EnvFrom", "envFrom", "[]v1.EnvFromSource"), ("Env", "env", "[]v1.EnvVar"),
    ("Resources", "resources", "v1.ResourceRequirements"), ("ResizePolicy", "resizePolicy", "[]v1.ContainerResizePolicy"),
    ("RestartPolicy", "restartPolicy", "*v1.ContainerRestartPolicy"),
    ("RestartPolicyRules", "restartPolicyRules", "[]v1.ContainerRestartRule"),
    ("VolumeMounts", "volumeMounts", "[]v1.VolumeMount"), ("VolumeDevices", "volumeDevices", "[]v1.VolumeDevice"),
    ("LivenessProbe", "livenessProbe", "*v1.Probe"), ("ReadinessProbe", "readinessProbe", "*v1.Probe"),
    ("StartupProbe", "startupProbe", "*v1.Probe"), ("Lifecycle", "lifecycle", "*v1.Lifecycle"),
    ("TerminationMessagePath", "terminationMessagePath", "string"),
    ("TerminationMessagePolicy", "terminationMessagePolicy", "v1.TerminationMessagePolicy"),
    ("ImagePullPolicy", "imagePullPolicy", "v1.PullPolicy"), ("SecurityContext", "securityContext", "*v1.SecurityContext"),
    ("Stdin", "stdin", "bool"), ("StdinOnce", "stdinOnce", "bool"), ("TTY", "tty", "bool"),
]

_VOLUME_SOURCES = [
    ("HostPath", "hostPath", "*v1.HostPathVolumeSource"), ("EmptyDir", "emptyDir", "*v1.EmptyDirVolumeSource"),
    ("GCEPersistentDisk", "gcePersistentDisk", "*v1.GCEPersistentDiskVolumeSource"),
    ("AWSElasticBlockStore", "awsElasticBlockStore", "*v1.AWSElasticBlockStoreVolumeSource"),
    ("GitRepo", "gitRepo", "*v1.GitRepoVolumeSource"), ("Secret", "secret", "*v1.SecretVolumeSource"),
    ("NFS", "nfs", "*v1.NFSVolumeSource"), ("ISCSI", "iscsi", "*v1.ISCSIVolumeSource"),
    ("Glusterfs", "glusterfs", "*v1.GlusterfsVolumeSource"),
    ("PersistentVolumeClaim", "persistentVolumeClaim", "*v1.PersistentVolumeClaimVolumeSource"),
    ("RBD", "rbd", "*v1.RBDVolumeSource"), ("FlexVolume", "flexVolume", "*v1.FlexVolumeSource"),
    ("Cinder", "cinder", "*v1.CinderVolumeSource"), ("CephFS", "cephfs", "*v1.CephFSVolumeSource"),
    ("Flocker", "flocker", "*v1.FlockerVolumeSource"), ("DownwardAPI", "downwardAPI", "*v1.DownwardAPIVolumeSource"),
    ("FC", "fc", "*v1.FCVolumeSource"), ("AzureFile", "azureFile", "*v1.AzureFileVolumeSource"),
    ("ConfigMap", "configMap", "*v1.ConfigMapVolumeSource"),
    ("VsphereVolume", "vsphereVolume", "*v1.VsphereVirtualDiskVolumeSource"),
    ("Quobyte", "quobyte", "*v1.QuobyteVolumeSource"), ("AzureDisk", "azureDisk", "*v1.AzureDiskVolumeSource"),
    ("PhotonPersistentDisk", "photonPersistentDisk", "*v1.PhotonPersistentDiskVolumeSource"),
    ("Projected", "projected", "*v1.ProjectedVolumeSource"),
    ("PortworxVolume", "portworxVolume", "*v1.PortworxVolumeSource"),
    ("ScaleIO", "scaleIO", "*v1.ScaleIOVolumeSource"), ("StorageOS", "storageos", "*v1.StorageOSVolumeSource"),
    ("CSI", "csi", "*v1.CSIVolumeSource"), ("Ephemeral", "ephemeral", "*v1.EphemeralVolumeSource"),
    ("Image", "image", "*v1.ImageVolumeSource"),
]

TYPES: dict[str, list[tuple[str, str, str]]] = {
    "v1.PodTemplateSpec": [("ObjectMeta", "metadata", "v1.ObjectMeta"), ("Spec", "spec", "v1.PodSpec")],
    "v1.ObjectMeta": _META,
    "v1.OwnerReference": [
        ("APIVersion", "apiVersion", "string"), ("Kind", "kind", "string"), ("Name", "name", "string"),
        ("UID", "uid", "types.UID"), ("Controller", "controller", "*bool"),
        ("BlockOwnerDeletion", "blockOwnerDeletion", "*bool")],
    "v1.PodSpec": [
        ("Volumes", "volumes", "[]v1.Volume"), ("InitContainers", "initContainers", "[]v1.Container"),
        ("Containers", "containers", "[]v1.Container"),
        ("EphemeralContainers", "ephemeralContainers", "[]v1.EphemeralContainer"),
        ("RestartPolicy", "restartPolicy", "v1.RestartPolicy"),
        ("TerminationGracePeriodSeconds", "terminationGracePeriodSeconds", "*int64"),
        ("ActiveDeadlineSeconds", "activeDeadlineSeconds", "*int64"), ("DNSPolicy", "dnsPolicy", "v1.DNSPolicy"),
        ("NodeSelector", "nodeSelector", "map[string]string"),
        ("ServiceAccountName", "serviceAccountName", "string"),
        ("DeprecatedServiceAccount", "serviceAccount", "string"),
        ("AutomountServiceAccountToken", "automountServiceAccountToken", "*bool"),
        ("NodeName", "nodeName", "string"), ("HostNetwork", "hostNetwork", "bool"), ("HostPID", "hostPID", "bool"),
        ("HostIPC", "hostIPC", "bool"), ("ShareProcessNamespace", "shareProcessNamespace", "*bool"),
        ("SecurityContext", "securityContext", "*v1.PodSecurityContext"),
        ("ImagePullSecrets", "imagePullSecrets", "[]v1.LocalObjectReference"), ("Hostname", "hostname", "string"),
        ("Subdomain", "subdomain", "string"), ("Affinity", "affinity", "*v1.Affinity"),
        ("SchedulerName", "schedulerName", "string"), ("Tolerations", "tolerations", "[]v1.Toleration"),
        ("HostAliases", "hostAliases", "[]v1.HostAlias"), ("PriorityClassName", "priorityClassName", "string"),
        ("Priority", "priority", "*int32"), ("DNSConfig", "dnsConfig", "*v1.PodDNSConfig"),
        ("ReadinessGates", "readinessGates", "[]v1.PodReadinessGate"),
        ("RuntimeClassName", "runtimeClassName", "*string"), ("EnableServiceLinks", "enableServiceLinks", "*bool"),
        ("PreemptionPolicy", "preemptionPolicy", "*v1.PreemptionPolicy"), ("Overhead", "overhead", "v1.ResourceList"),
        ("TopologySpreadConstraints", "topologySpreadConstraints", "[]v1.TopologySpreadConstraint"),
        ("SetHostnameAsFQDN", "setHostnameAsFQDN", "*bool"), ("OS", "os", "*v1.PodOS"),
        ("HostUsers", "hostUsers", "*bool"), ("SchedulingGates", "schedulingGates", "[]v1.PodSchedulingGate"),
        ("ResourceClaims", "resourceClaims", "[]v1.PodResourceClaim"),
        ("Resources", "resources", "*v1.ResourceRequirements"), ("HostnameOverride", "hostnameOverride", "*string"),
        ("WorkloadRef", "workloadRef", "*v1.WorkloadReference")],
    "v1.WorkloadReference": [("Name", "name", "string"), ("PodGroup", "podGroup", "string"),
                             ("PodGroupReplicaKey", "podGroupReplicaKey", "string")],
    "v1.Container": _CONTAINER,
    "v1.EphemeralContainer": [("EphemeralContainerCommon", "", "v1.EphemeralContainerCommon"),
                              ("TargetContainerName", "targetContainerName", "string")],
    "v1.EphemeralContainerCommon": _CONTAINER,
    "v1.ContainerPort": [
        ("Name", "name", "string"), ("HostPort", "hostPort", "int32"), ("ContainerPort", "containerPort", "int32"),
        ("Protocol", "protocol", "v1.Protocol"), ("HostIP", "hostIP", "string")],
    "v1.EnvFromSource": [("Prefix", "prefix", "string"), ("ConfigMapRef", "configMapRef", "*v1.ConfigMapEnvSource"),
                         ("SecretRef", "secretRef", "*v1.SecretEnvSource")],
    "v1.ConfigMapEnvSource": [("LocalObjectReference", "", "v1.LocalObjectReference"), ("Optional", "optional", "*bool")],
    "v1.SecretEnvSource": [("LocalObjectReference", "", "v1.LocalObjectReference"), ("Optional", "optional", "*bool")],
    "v1.LocalObjectReference": [("Name", "name", "string")],
    "v1.EnvVar": [("Name", "name", "string"), ("Value", "value", "string"), ("ValueFrom", "valueFrom", "*v1.EnvVarSource")],
    "v1.EnvVarSource": [
        ("FieldRef", "fieldRef", "*v1.ObjectFieldSelector"), ("ResourceFieldRef", "resourceFieldRef", "*v1.ResourceFieldSelector"),
        ("ConfigMapKeyRef", "configMapKeyRef", "*v1.ConfigMapKeySelector"),
        ("SecretKeyRef", "secretKeyRef", "*v1.SecretKeySelector"), ("FileKeyRef", "fileKeyRef", "*v1.FileKeySelector")],
    "v1.ObjectFieldSelector": [("APIVersion", "apiVersion", "string"), ("FieldPath", "fieldPath", "string")],
    "v1.ResourceFieldSelector": [("ContainerName", "containerName", "string"), ("Resource", "resource", "string"),
                                 ("Divisor", "divisor", "resource.Quantity")],
    "v1.ConfigMapKeySelector": [("LocalObjectReference", "", "v1.LocalObjectReference"), ("Key", "key", "string"),
                                ("Optional", "optional", "*bool")],
    "v1.SecretKeySelector": [("LocalObjectReference", "", "v1.LocalObjectReference"), ("Key", "key", "string"),
                             ("Optional", "optional", "*bool")],
    "v1.FileKeySelector": [("VolumeName", "volumeName", "string"), ("Path", "path", "string"), ("Key", "key", "string"),
                           ("Optional", "optional", "*bool")],
    "v1.ResourceRequirements": [("Limits", "limits", "v1.ResourceList"), ("Requests", "requests", "v1.ResourceList"),
                                ("Claims", "claims", "[]v1.ResourceClaim")],
    "v1.ResourceClaim": [("Name", "name", "string"), ("Request", "request", "string")],
    "v1.ContainerResizePolicy": [("ResourceName", "resourceName", "v1.ResourceName"),
                                 ("RestartPolicy", "restartPolicy", "v1.ResourceResizeRestartPolicy")],
    "v1.ContainerRestartRule": [("Action", "action", "v1.ContainerRestartRuleAction"),
                                ("ExitCodes", "exitCodes", "*v1.ContainerRestartRuleOnExitCodes")],
    "v1.ContainerRestartRuleOnExitCodes": [("Operator", "operator", "v1.ContainerRestartRuleOnExitCodesOperator"),
                                           ("Values", "values", "[]int32")],
    "v1.VolumeMount": [
        ("Name", "name", "string"), ("ReadOnly", "readOnly", "bool"),
        ("RecursiveReadOnly", "recursiveReadOnly", "*v1.RecursiveReadOnlyMode"), ("MountPath", "mountPath", "string"),
        ("SubPath", "subPath", "string"), ("MountPropagation", "mountPropagation", "*v1.MountPropagationMode"),
        ("SubPathExpr", "subPathExpr", "string")],
    "v1.VolumeDevice": [("Name", "name", "string"), ("DevicePath", "devicePath", "string")],
    "v1.Probe": [
        ("ProbeHandler", "", "v1.ProbeHandler"), ("InitialDelaySeconds", "initialDelaySeconds", "int32"),
        ("TimeoutSeconds", "timeoutSeconds", "int32"), ("PeriodSeconds", "periodSeconds", "int32"),
        ("SuccessThreshold", "successThreshold", "int32"), ("FailureThreshold", "failureThreshold", "int32"),
        ("TerminationGracePeriodSeconds", "terminationGracePeriodSeconds", "*int64")],
    "v1.ProbeHandler": [("Exec", "exec", "*v1.ExecAction"), ("HTTPGet", "httpGet", "*v1.HTTPGetAction"),
                        ("TCPSocket", "tcpSocket", "*v1.TCPSocketAction"), ("GRPC", "grpc", "*v1.GRPCAction")],
    "v1.LifecycleHandler": [("Exec", "exec", "*v1.ExecAction"), ("HTTPGet", "httpGet", "*v1.HTTPGetAction"),
                            ("TCPSocket", "tcpSocket", "*v1.TCPSocketAction"), ("Sleep", "sleep", "*v1.SleepAction")],
    "v1.Lifecycle": [("PostStart", "postStart", "*v1.LifecycleHandler"), ("PreStop", "preStop", "*v1.LifecycleHandler"),
                     ("StopSignal", "stopSignal", "*v1.Signal")],
    "v1.ExecAction": [("Command", "command", "[]string")],
    "v1.HTTPGetAction": [("Path", "path", "string"), ("Port", "port", "intstr.IntOrString"), ("Host", "host", "string"),
                         ("Scheme", "scheme", "v1.URIScheme"), ("HTTPHeaders", "httpHeaders", "[]v1.HTTPHeader")],
    "v1.HTTPHeader": [("Name", "name", "string"), ("Value", "value", "string")],
    "v1.TCPSocketAction": [("Port", "port", "intstr.IntOrString"), ("Host", "host", "string")],
    "v1.GRPCAction": [("Port", "port", "int32"), ("Service", "service", "*string")],
    "v1.SleepAction": [("Seconds", "seconds", "int64")],
    "v1.SecurityContext": [
        ("Capabilities", "capabilities", "*v1.Capabilities"), ("Privileged", "privileged", "*bool"),
        ("SELinuxOptions", "seLinuxOptions", "*v1.SELinuxOptions"),
        ("WindowsOptions", "windowsOptions", "*v1.WindowsSecurityContextOptions"),
        ("RunAsUser", "runAsUser", "*int64"), ("RunAsGroup", "runAsGroup", "*int64"),
        ("RunAsNonRoot", "runAsNonRoot", "*bool"), ("ReadOnlyRootFilesystem", "readOnlyRootFilesystem", "*bool"),
        ("AllowPrivilegeEscalation", "allowPrivilegeEscalation", "*bool"),
        ("ProcMount", "procMount", "*v1.ProcMountType"), ("SeccompProfile", "seccompProfile", "*v1.SeccompProfile"),
        ("AppArmorProfile", "appArmorProfile", "*v1.AppArmorProfile")],
    "v1.Capabilities": [("Add", "add", "[]v1.Capability"), ("Drop", "drop", "[]v1.Capability")],
    "v1.SELinuxOptions": [("User", "user", "string"), ("Role", "role", "string"), ("Type", "type", "string"),
                          ("Level", "level", "string")],
    "v1.WindowsSecurityContextOptions": [
        ("GMSACredentialSpecName", "gmsaCredentialSpecName", "*string"),
        ("GMSACredentialSpec", "gmsaCredentialSpec", "*string"), ("RunAsUserName", "runAsUserName", "*string"),
        ("HostProcess", "hostProcess", "*bool")],
    "v1.SeccompProfile": [("Type", "type", "v1.SeccompProfileType"), ("LocalhostProfile", "localhostProfile", "*string")],
    "v1.AppArmorProfile": [("Type", "type", "v1.AppArmorProfileType"), ("LocalhostProfile", "localhostProfile", "*string")],
    "v1.PodSecurityContext": [
        ("SELinuxOptions", "seLinuxOptions", "*v1.SELinuxOptions"),
        ("WindowsOptions", "windowsOptions", "*v1.WindowsSecurityContextOptions"), ("RunAsUser", "runAsUser", "*int64"),
        ("RunAsGroup", "runAsGroup", "*int64"), ("RunAsNonRoot", "runAsNonRoot", "*bool"),
        ("SupplementalGroups", "supplementalGroups", "[]int64"),
        ("SupplementalGroupsPolicy", "supplementalGroupsPolicy", "*v1.SupplementalGroupsPolicy"),
        ("FSGroup", "fsGroup", "*int64"), ("Sysctls", "sysctls", "[]v1.Sysctl"),
        ("FSGroupChangePolicy", "fsGroupChangePolicy", "*v1.PodFSGroupChangePolicy"),
        ("SeccompProfile", "seccompProfile", "*v1.SeccompProfile"),
        ("AppArmorProfile", "appArmorProfile", "*v1.AppArmorProfile"),
        ("SELinuxChangePolicy", "seLinuxChangePolicy", "*v1.PodSELinuxChangePolicy")],
    "v1.Sysctl": [("Name", "name", "string"), ("Value", "value", "string")],
    "v1.Affinity": [("NodeAffinity", "nodeAffinity", "*v1.NodeAffinity"), ("PodAffinity", "podAffinity", "*v1.PodAffinity"),
                    ("PodAntiAffinity", "podAntiAffinity", "*v1.PodAntiAffinity")],
    "v1.NodeAffinity": [
        ("RequiredDuringSchedulingIgnoredDuringExecution", "requiredDuringSchedulingIgnoredDuringExecution", "*v1.NodeSelector"),
        ("PreferredDuringSchedulingIgnoredDuringExecution", "preferredDuringSchedulingIgnoredDuringExecution",
         "[]v1.PreferredSchedulingTerm")],
    "v1.NodeSelector": [("NodeSelectorTerms", "nodeSelectorTerms", "[]v1.NodeSelectorTerm")],
    "v1.NodeSelectorTerm": [("MatchExpressions", "matchExpressions", "[]v1.NodeSelectorRequirement"),
                            ("MatchFields", "matchFields", "[]v1.NodeSelectorRequirement")],
    "v1.NodeSelectorRequirement": [("Key", "key", "string"), ("Operator", "operator", "v1.NodeSelectorOperator"),
                                   ("Values", "values", "[]string")],
    "v1.PreferredSchedulingTerm": [("Weight", "weight", "int32"), ("Preference", "preference", "v1.NodeSelectorTerm")],
    "v1.PodAffinity": [
        ("RequiredDuringSchedulingIgnoredDuringExecution", "requiredDuringSchedulingIgnoredDuringExecution", "[]v1.PodAffinityTerm"),
        ("PreferredDuringSchedulingIgnoredDuringExecution", "preferredDuringSchedulingIgnoredDuringExecution",
         "[]v1.WeightedPodAffinityTerm")],
    "v1.PodAntiAffinity": [
        ("RequiredDuringSchedulingIgnoredDuringExecution", "requiredDuringSchedulingIgnoredDuringExecution", "[]v1.PodAffinityTerm"),
        ("PreferredDuringSchedulingIgnoredDuringExecution", "preferredDuringSchedulingIgnoredDuringExecution",
         "[]v1.WeightedPodAffinityTerm")],
    "v1.PodAffinityTerm": [
        ("LabelSelector", "labelSelector", "*v1.LabelSelector"), ("Namespaces", "namespaces", "[]string"),
        ("TopologyKey", "topologyKey", "string"), ("NamespaceSelector", "namespaceSelector", "*v1.LabelSelector"),
        ("MatchLabelKeys", "matchLabelKeys", "[]string"), ("MismatchLabelKeys", "mismatchLabelKeys", "[]string")],
    "v1.WeightedPodAffinityTerm": [("Weight", "weight", "int32"), ("PodAffinityTerm", "podAffinityTerm", "v1.PodAffinityTerm")],
    "v1.LabelSelector": [("MatchLabels", "matchLabels", "map[string]string"),
                         ("MatchExpressions", "matchExpressions", "[]v1.LabelSelectorRequirement")],
    "v1.LabelSelectorRequirement": [("Key", "key", "string"), ("Operator", "operator", "v1.LabelSelectorOperator"),
                                    ("Values", "values", "[]string")],
    "v1.Toleration": [("Key", "key", "string"), ("Operator", "operator", "v1.TolerationOperator"),
                      ("Value", "value", "string"), ("Effect", "effect", "v1.TaintEffect"),
                      ("TolerationSeconds", "tolerationSeconds", "*int64")],
    "v1.HostAlias": [("IP", "ip", "string"), ("Hostnames", "hostnames", "[]string")],
    "v1.PodDNSConfig": [("Nameservers", "nameservers", "[]string"), ("Searches", "searches", "[]string"),
                        ("Options", "options", "[]v1.PodDNSConfigOption")],
    "v1.PodDNSConfigOption": [("Name", "name", "string"), ("Value", "value", "*string")],
    "v1.PodReadinessGate": [("ConditionType", "conditionType", "v1.PodConditionType")],
    "v1.TopologySpreadConstraint": [
        ("MaxSkew", "maxSkew", "int32"), ("TopologyKey", "topologyKey", "string"),
        ("WhenUnsatisfiable", "whenUnsatisfiable", "v1.UnsatisfiableConstraintAction"),
        ("LabelSelector", "labelSelector", "*v1.LabelSelector"), ("MinDomains", "minDomains", "*int32"),
        ("NodeAffinityPolicy", "nodeAffinityPolicy", "*v1.NodeInclusionPolicy"),
        ("NodeTaintsPolicy", "nodeTaintsPolicy", "*v1.NodeInclusionPolicy"),
        ("MatchLabelKeys", "matchLabelKeys", "[]string")],
    "v1.PodOS": [("Name", "name", "v1.OSName")],
    "v1.PodSchedulingGate": [("Name", "name", "string")],
    "v1.PodResourceClaim": [("Name", "name", "string"), ("ResourceClaimName", "resourceClaimName", "*string"),
                            ("ResourceClaimTemplateName", "resourceClaimTemplateName", "*string")],
    "v1.Volume": [("Name", "name", "string"), ("VolumeSource", "", "v1.VolumeSource")],
    "v1.VolumeSource": _VOLUME_SOURCES,
    "v1.HostPathVolumeSource": [("Path", "path", "string"), ("Type", "type", "*v1.HostPathType")],
    "v1.EmptyDirVolumeSource": [("Medium", "medium", "v1.StorageMedium"), ("SizeLimit", "sizeLimit", "*resource.Quantity")],
    "v1.KeyToPath": [("Key", "key", "string"), ("Path", "path", "string"), ("Mode", "mode", "*int32")],
    "v1.SecretVolumeSource": [("SecretName", "secretName", "string"), ("Items", "items", "[]v1.KeyToPath"),
                              ("DefaultMode", "defaultMode", "*int32"), ("Optional", "optional", "*bool")],
    "v1.ConfigMapVolumeSource": [("LocalObjectReference", "", "v1.LocalObjectReference"), ("Items", "items", "[]v1.KeyToPath"),
                                 ("DefaultMode", "defaultMode", "*int32"), ("Optional", "optional", "*bool")],
    "v1.PersistentVolumeClaimVolumeSource": [("ClaimName", "claimName", "string"), ("ReadOnly", "readOnly", "bool")],
    "v1.NFSVolumeSource": [("Server", "server", "string"), ("Path", "path", "string"), ("ReadOnly", "readOnly", "bool")],
    "v1.DownwardAPIVolumeSource": [("Items", "items", "[]v1.DownwardAPIVolumeFile"), ("DefaultMode", "defaultMode", "*int32")],
    "v1.DownwardAPIVolumeFile": [("Path", "path", "string"), ("FieldRef", "fieldRef", "*v1.ObjectFieldSelector"),
                                 ("ResourceFieldRef", "resourceFieldRef", "*v1.ResourceFieldSelector"),
                                 ("Mode", "mode", "*int32")],
    "v1.ProjectedVolumeSource": [("Sources", "sources", "[]v1.VolumeProjection"), ("DefaultMode", "defaultMode", "*int32")],
    "v1.VolumeProjection": [
        ("Secret", "secret", "*v1.SecretProjection"), ("DownwardAPI", "downwardAPI", "*v1.DownwardAPIProjection"),
        ("ConfigMap", "configMap", "*v1.ConfigMapProjection"),
        ("ServiceAccountToken", "serviceAccountToken", "*v1.ServiceAccountTokenProjection"),
        ("ClusterTrustBundle", "clusterTrustBundle", "*v1.ClusterTrustBundleProjection"),
        ("PodCertificate", "podCertificate", "*v1.PodCertificateProjection")],
    "v1.SecretProjection": [("LocalObjectReference", "", "v1.LocalObjectReference"), ("Items", "items", "[]v1.KeyToPath"),
                            ("Optional", "optional", "*bool")],
    "v1.ConfigMapProjection": [("LocalObjectReference", "", "v1.LocalObjectReference"), ("Items", "items", "[]v1.KeyToPath"),
                               ("Optional", "optional", "*bool")],
    "v1.DownwardAPIProjection": [("Items", "items", "[]v1.DownwardAPIVolumeFile")],
    "v1.ImageVolumeSource": [("Reference", "reference", "string"), ("PullPolicy", "pullPolicy", "v1.PullPolicy")],
    "v1.ServiceAccountTokenProjection": [("Audience", "audience", "string"),
                                         ("ExpirationSeconds", "expirationSeconds", "*int64"), ("Path", "path", "string")],
}

_SPECIAL = {"resource.Quantity", "intstr.IntOrString", "v1.Time", "v1.ResourceList"}


def spew_pod_template(template: dict) -> str:
    """go-spew ``%#v`` of a v1.PodTemplateSpec given as JSON."""
    out: list[str] = []
    _fmt(template or {}, "v1.PodTemplateSpec", True, out)
    return "".join(out)


def _display(t: str) -> str:
    return t


def _fmt(v, t: str, show_type: bool, out: list[str]) -> None:
    """spew's formatState.format (``show_type`` is the inverse of ignoreNextType)."""
    if t.startswith("*"):
        inner = t[1:]
        if v is None:
            out.append(f"({t})<nil>")
            return
        out.append(f"({t})")
        _fmt(v, inner, False, out)
        return
    if show_type:
        out.append(f"({_display(t)})")
    if t.startswith("[]"):
        if not v:
            out.append("<nil>")
            return
        out.append("[")
        for i, item in enumerate(v):
            if i:
                out.append(" ")
            _fmt(item, t[2:], False, out)
        out.append("]")
        return
    if t == "map[string]string":
        if not v:
            out.append("<nil>")
            return
        out.append("map[" + " ".join(f"{k}:{v[k]}" for k in sorted(v)) + "]")
        return
    if t == "v1.ResourceList":
        if not v:
            out.append("<nil>")
            return
        out.append("map[")
        for i, k in enumerate(sorted(v)):
            if i:
                out.append(" ")
            out.append(f"{k}:")
            _fmt(v[k], "resource.Quantity", False, out)
        out.append("]")
        return
    if t == "resource.Quantity":
        value, scale, fmt_, s = parse_quantity("" if v is None else str(v))
        out.append(f"{{i:(resource.int64Amount){{value:(int64){value} scale:(resource.Scale){scale}}} "
                   f"d:(resource.infDecAmount){{Dec:(*inf.Dec)<nil>}} s:(string){s} Format:(resource.Format){fmt_}}}")
        return
    if t == "intstr.IntOrString":
        if isinstance(v, str):
            out.append(f"{{Type:(intstr.Type)1 IntVal:(int32)0 StrVal:(string){v}}}")
        else:
            out.append(f"{{Type:(intstr.Type)0 IntVal:(int32){int(v or 0)} StrVal:(string)}}")
        return
    if t == "v1.Time":
        # a template's creationTimestamp is null: the zero time.Time
        out.append("{Time:(time.Time){wall:(uint64)0 ext:(int64)0 loc:(*time.Location)<nil>}}")
        return
    kind = NAMED.get(t, t)
    if kind == "string":
        out.append("" if v is None else str(v))
        return
    if kind == "bool":
        out.append("true" if v else "false")
        return
    if kind in ("int32", "int64"):
        out.append(str(int(v or 0)))
        return
    fields = TYPES.get(t)
    if fields is None:  # a type kubesim does not lay out: render its JSON keys in sorted order
        fields = [(k[:1].upper() + k[1:], k, _guess(val)) for k, val in sorted((v or {}).items())]
    obj = v if isinstance(v, dict) else {}
    out.append("{")
    for i, (name, key, ft) in enumerate(fields):
        if i:
            out.append(" ")
        out.append(name + ":")
        _fmt(obj if key == "" else obj.get(key), ft, True, out)
    out.append("}")


def _guess(v) -> str:
    if isinstance(v, bool):
        return "*bool"
    if isinstance(v, int):
        return "int64"
    if isinstance(v, list):
        return "[]string"
    if isinstance(v, dict):
        return "map[string]string"
    return "string"


# ---------------------------------------------------------------------------------------------
# resource.ParseQuantity, as far as ComputeHash sees it (int64Amount and the cached string)

_DECIMAL_SUFFIX = {"": 0, "n": -9, "u": -6, "m": -3, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BINARY_SUFFIX = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_QTY_RE = re.compile(r"^([+-]?)(\d*)(?:\.(\d*))?(.*)$")


def parse_quantity(s: str) -> tuple[int, int, str, str]:
    """(int64Amount.value, int64Amount.scale, Format, cached string) of resource.ParseQuantity(s)."""
    s = s.strip()
    if s == "0":
        return 0, 0, "DecimalSI", "0"
    m = _QTY_RE.match(s)
    if not m:
        return 0, 0, "DecimalSI", ""
    sign, num, denom, suf = m.group(1), m.group(2) or "", m.group(3) or "", m.group(4)
    num = num.lstrip("0") or "0" if num else "0"
    positive = sign != "-"
    if suf in _BINARY_SUFFIX:
        fmt_, exponent = "BinarySI", _BINARY_SUFFIX[suf]
    elif suf in _DECIMAL_SUFFIX:
        fmt_, exponent = "DecimalSI", _DECIMAL_SUFFIX[suf]
    elif suf[:1] in ("e", "E"):
        fmt_, exponent = "DecimalExponent", int(suf[1:] or 0)
    else:
        fmt_, exponent = "DecimalSI", 0
    mantissa = 1
    if fmt_ == "BinarySI":
        scale = 0
        if exponent >= 0 and not denom:
            mantissa = 1 << exponent
            precision = 15 - len(num) - int(exponent * 3 / 10) - 1
        else:
            precision = -1
    else:
        scale = exponent
        precision = 18 - (len(num) + len(denom))
    if precision >= 0:
        scale -= len(denom)
        if scale >= -9:
            shifted = num + denom
            value = int(shifted)
            result = value * mantissa
            if -(1 << 63) <= result < (1 << 63):
                if not positive:
                    result = -result
                cached = ""
                if fmt_ == "BinarySI":
                    if exponent % 10 == 0 and (value & 0x07) != 0:
                        cached = s
                elif scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0":
                    cached = s
                return result, scale, fmt_, cached
    # inf.Dec path (not modelled): approximate with the integral value
    from decimal import Decimal

    try:
        d = Decimal(sign + (m.group(2) or "0") + ("." + denom if denom else ""))
    except ArithmeticError:  # pragma: no cover - validation rejects such quantities first
        d = Decimal(0)
    return int(d * (Decimal(2) ** exponent if fmt_ == "BinarySI" else Decimal(10) ** exponent)), 0, fmt_, ""


# ---------------------------------------------------------------------------------------------
# json.Marshal's view of a pod template (omitempty), for revisions stored as raw JSON

_SCALARS = {"string", "bool", "int32", "int64"}


def omit_empty_pod_template(template: dict) -> dict:
    """The JSON ``json.Marshal`` writes for a v1.PodTemplateSpec decoded from ``template``: fields
    holding their Go zero value are dropped (``omitempty``: an empty string, list or map, false,
    0, a nil pointer), pointers keep whatever they point to (``privileged: false``), structs
    stay even when empty (``resources: {}``). Keys this layout does not know are kept."""
    return _omit(template or {}, "v1.PodTemplateSpec")


def _omit(v, t: str):
    if v is None:
        return None
    if t.startswith("*"):
        return _omit(v, t[1:])
    if t.startswith("[]"):
        return [_omit(x, t[2:]) for x in v] if isinstance(v, list) else v
    fields = TYPES.get(t)
    if fields is None or not isinstance(v, dict):
        return v
    out: dict = {}
    _omit_fields(v, fields, out)
    known = _field_keys(fields)
    out.update({k: x for k, x in v.items() if k not in known})
    return out


def _field_keys(fields) -> set[str]:
    keys: set[str] = set()
    for _, key, ft in fields:
        keys |= _field_keys(TYPES.get(ft, [])) if key == "" else {key}
    return keys


def _omit_fields(v: dict, fields, out: dict) -> None:
    for _, key, ft in fields:
        if key == "":  # an embedded struct: its fields are inline
            _omit_fields(v, TYPES.get(ft, []), out)
            continue
        if key not in v or v[key] is None:
            continue
        x = v[key]
        if not ft.startswith("*"):
            kind = NAMED.get(ft, ft)
            if ft.startswith(("[]", "map[")) or ft == "v1.ResourceList":
                if not x:
                    continue
            elif kind in _SCALARS and (x == "" or x is False or (x == 0 and not isinstance(x, bool))):
                continue
        out[key] = _omit(x, ft)
# Endpoints: pkg/api/v1/endpoints/util.go orders a subset's ports, and the subsets, by the
# fnv-128a hash of their spew dump (``hashObject``: DeepHashObject, then ``Sum``)

TYPES.update({
    "v1.EndpointPort": [("Name", "name", "string"), ("Port", "port", "int32"), ("Protocol", "protocol", "v1.Protocol"),
                        ("AppProtocol", "appProtocol", "*string")],
    "v1.EndpointAddress": [("IP", "ip", "string"), ("Hostname", "hostname", "string"),
                           ("NodeName", "nodeName", "*string"), ("TargetRef", "targetRef", "*v1.ObjectReference")],
    "v1.ObjectReference": [("Kind", "kind", "string"), ("Namespace", "namespace", "string"), ("Name", "name", "string"),
                           ("UID", "uid", "types.UID"), ("APIVersion", "apiVersion", "string"),
                           ("ResourceVersion", "resourceVersion", "string"), ("FieldPath", "fieldPath", "string")],
    "v1.EndpointSubset": [("Addresses", "addresses", "[]v1.EndpointAddress"),
                          ("NotReadyAddresses", "notReadyAddresses", "[]v1.EndpointAddress"),
                          ("Ports", "ports", "[]v1.EndpointPort")],
})

_FNV128_OFFSET = 0x6C62272E07BB014262B821756295C58D
_FNV128_PRIME = 0x0000000001000000000000000000013B


def fnv128a(data: bytes) -> bytes:
    h = _FNV128_OFFSET
    for b in data:
        h ^= b
        h = (h * _FNV128_PRIME) & ((1 << 128) - 1)
    return h.to_bytes(16, "big")


def hash_object_128(value: dict, go_type: str) -> bytes:
    """endpoints util's ``hashObject(fnv.New128a(), value)`` for a JSON value held as ``go_type``."""
    out: list[str] = []
    _fmt(value, go_type, True, out)
    return fnv128a("".join(out).encode())
