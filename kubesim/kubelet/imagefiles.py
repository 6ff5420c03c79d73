"""Which programs an image holds, so that a command the image does not have fails to start as
it fails on a node.

runc execs the container's first argument inside the image (libcontainer's init: a name
without a slash is looked up in the container's ``$PATH``, exec.LookPath; a path is stat'ed),
and when that fails containerd reports the StartContainer error the kubelet shows
(pkg/kubelet/kuberuntime/kuberuntime_container.go startContainer: event ``Failed`` with
``Error: <message>``, the container terminated with reason ``StartError`` and exit code 128,
then ``RunContainerError`` until the next sync, then ``CrashLoopBackOff``)::

    failed to create containerd task: failed to create shim task: OCI runtime create failed:
    runc create failed: unable to start container process: error during container init:
    exec: "nosuchbinary": executable file not found in $PATH: unknown

A command a shell script runs (``sh -c '...; nosuchbinary; ...'``) is looked up the same way
by the image's shell, which says so on stderr and goes on with status 127 (:func:`not_found_in_script`:
busybox's and Alpine's ash ``sh: X: not found``, Debian's dash ``sh: 1: X: not found``, bash
``bash: line 1: X: command not found``).

Only the images listed here are checked (the busybox applets of the official image, Alpine's
base, Debian's and Ubuntu's base and the nginx image built on them); any other image is assumed
to have whatever it is asked to run.
"""

from __future__ import annotations


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


START_ERROR_PREFIX = ("failed to create containerd task: failed to create shim task: OCI runtime create failed: "
                      "runc create failed: unable to start container process: error during container init: ")

# the applets of busybox's defconfig, as the official image installs them in /bin
BUSYBOX = _words("""
[ [[ acpid addgroup adduser adjtimex ar arch arp arping ascii ash awk base32 base64 basename bc beep blkdiscard
blkid blockdev bootchartd brctl bunzip2 busybox bzcat bzip2 cal cat chat chattr chgrp chmod chown chpasswd chpst
chroot chrt chvt cksum clear cmp comm conspy cp cpio crc32 crond crontab cryptpw cttyhack cut date dc dd
deallocvt delgroup deluser depmod devmem df dhcprelay diff dirname dmesg dnsd dnsdomainname dos2unix dpkg
dpkg-deb du dumpkmap dumpleases echo ed egrep eject env envdir envuidgid ether-wake expand expr factor fakeidentd
fallocate false fatattr fbset fbsplash fdflush fdformat fdisk fgconsole fgrep find findfs flock fold free
freeramdisk fsck fsck.minix fsfreeze fstrim fsync ftpd ftpget ftpput fuser getconf getopt getty grep groups
gunzip gzip halt hd hdparm head hexdump hexedit hostid hostname httpd hush hwclock i2cdetect i2cdump i2cget
i2cset i2ctransfer id ifconfig ifdown ifenslave ifplugd ifup inetd init insmod install ionice iostat ip
ipaddr ipcalc ipcrm ipcs iplink ipneigh iproute iprule iptunnel kbd_mode kill killall killall5 klogd last
less link linux32 linux64 linuxrc ln loadfont loadkmap logger login logname logread losetup lpd lpq lpr ls
lsattr lsmod lsof lspci lsscsi lsusb lzcat lzma lzop lzopcat makedevs makemime man md5sum mdev mesg microcom
mim mkdir mkdosfs mke2fs mkfifo mkfs.ext2 mkfs.minix mkfs.vfat mknod mkpasswd mkswap mktemp modinfo modprobe
more mount mountpoint mpstat mt mv nameif nanddump nandwrite nbd-client nc netstat nice nl nmeter nohup nologin
nproc nsenter nslookup ntpd nuke od openvt partprobe passwd paste patch pgrep pidof ping ping6 pipe_progress
pivot_root pkill pmap popmaildir poweroff powertop printenv printf ps pscan pstree pwd pwdx raidautorun rdate
rdev readahead readlink readprofile realpath reboot reformime remove-shell renice reset resize resume rev rm
rmdir rmmod route rpm rpm2cpio rtcwake run-init run-parts runlevel runsv runsvdir rx script scriptreplay sed
sendmail seq setarch setconsole setfattr setfont setkeycodes setlogcons setpriv setserial setsid setuidgid sh
sha1sum sha256sum sha3sum sha512sum showkey shred shuf slattach sleep smemcap softlimit sort split ssl_client
start-stop-daemon stat strings stty su sulogin sum sv svc svlogd svok swapoff swapon switch_root sync sysctl
syslogd tac tail tar taskset tc tcpsvd tee telnet telnetd test tftp tftpd time timeout top touch tr traceroute
traceroute6 tree true truncate ts tty ttysize tunctl ubiattach ubidetach ubimkvol ubirename ubirmvol ubirsvol
ubiupdatevol udhcpc udhcpc6 udhcpd udpsvd uevent umount uname unexpand uniq unix2dos unlink unlzma unshare unxz
unzip uptime users usleep uudecode uuencode vconfig vi vlock volname w wall watch watchdog wc wget which who
whoami whois xargs xxd xz xzcat yes zcat zcip
""")

# Alpine's base: its busybox (a smaller applet set, but the commands people run are there),
# apk and musl's tools
ALPINE = BUSYBOX | _words("apk getent iconv ldconfig ldd scanelf ssl_client")

# Debian's and Ubuntu's base images: coreutils, bash and dash, the essential packages
DEBIAN = _words("""
[ apt apt-cache apt-config apt-get apt-key apt-mark arch awk b2sum base32 base64 basename basenc bash cat
chcon chgrp chmod chown chroot cksum clear cmp comm cp csplit cut dash date dd debconf df diff diff3 dir
dircolors dirname dmesg dpkg dpkg-deb dpkg-query du echo egrep env expand expr factor false fgrep find
findmnt fmt fold getent getopt grep groupadd groups gunzip gzip head hostid hostname id install join kill
last ldd link ln logger login logname ls lsblk mawk md5sum mkdir mkfifo mknod mktemp more mount mv nice nl
nohup nproc numfmt od passwd paste pathchk perl pinky pr printenv printf ptx pwd readlink realpath rgrep rm
rmdir runcon sdiff sed seq sh sha1sum sha224sum sha256sum sha384sum sha512sum shred shuf sleep sort split stat
stdbuf stty su sum sync tac tail tar tee test timeout touch tr true truncate tset tsort tty umount uname
unexpand uniq unlink useradd userdel usermod users vdir wc which who whoami xargs yes zcat zgrep
""")

_NGINX = _words("nginx nginx-debug curl envsubst docker-entrypoint.sh /docker-entrypoint.sh")

# image repository -> (base set, the image's own programs)
IMAGE_PROGRAMS: dict[str, tuple[frozenset, frozenset]] = {
    "busybox": (BUSYBOX, frozenset()),
    "alpine": (ALPINE, frozenset()),
    "debian": (DEBIAN, frozenset()),
    "ubuntu": (DEBIAN, frozenset()),
    "nginx": (DEBIAN, _NGINX),
    # the same busybox, mirrored by the Kubernetes project's registries
    **{repo: (BUSYBOX, frozenset()) for repo in ("registry.k8s.io/busybox",
                                                 "gcr.io/google-containers/busybox", "k8s.gcr.io/busybox")},
    # Debian with Apache httpd in /usr/local/apache2/bin (on the image's PATH)
    "httpd": (DEBIAN, _words("httpd httpd-foreground apachectl htpasswd htdigest ab rotatelogs")),
    # Alpine with curl, started through its entrypoint script
    "curlimages/curl": (ALPINE, _words("curl /entrypoint.sh")),
}
# directories of the default $PATH (containerd's default for an image without PATH)
PATH_DIRS = ("/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin")


def programs_of(image: str) -> frozenset | None:
    """The programs ``image`` holds (by name; None: not known, anything runs)."""
    from kubesim.kubelet.images import image_repository
    from kubesim.kubelet.pods import image_ref

    repo = image_repository(image)
    entry = IMAGE_PROGRAMS.get(repo)
    if entry is None:
        return None
    base, own = entry
    tag = image_ref(image)[0].rpartition(":")[2] if "@" not in image else ""
    if "alpine" in tag:
        base = ALPINE
    return base | own


def start_error(argv: list[str], image: str) -> str | None:
    """The runtime's error starting ``argv`` in ``image``, or None when it starts."""
    why = lookup_error(argv[0], image) if argv else None
    return None if why is None else START_ERROR_PREFIX + why


def lookup_error(exe: str, image: str) -> str | None:
    """Why runc cannot exec ``exe`` in ``image`` (the end of its message, shared by a container's
    start and by ``kubectl exec``), or None when the image has it or is not listed."""
    programs = programs_of(image)
    if programs is None or found(exe, programs):
        return None
    if "/" not in exe:
        return f'exec: "{exe}": executable file not found in $PATH: unknown'
    return f'exec: "{exe}": stat {exe}: no such file or directory: unknown'


# what a shell runs itself, never looked up in $PATH
SHELL_BUILTINS = _words("""
. : [ alias bg break cd command continue eval exec exit export false fg getopts hash jobs let local pwd read
readonly return set shift source test times trap true type ulimit umask unalias unset wait echo printf kill
""")


def found(exe: str, programs: frozenset) -> bool:
    """Whether the lookup of ``exe`` (a name in $PATH, or a path) finds it among ``programs``."""
    if "/" not in exe:
        return exe in programs
    directory, _, name = exe.rpartition("/")
    return exe in programs or (directory in PATH_DIRS and name in programs) or not exe.startswith("/")


def not_found_in_script(exe: str, image: str, shell: str) -> str | None:
    """What ``shell`` (the script's interpreter, ``sh`` or ``bash``) in ``image`` prints for a
    command it cannot find, or None when it finds it (or the image is not listed)."""
    programs = programs_of(image)
    if programs is None or exe in SHELL_BUILTINS or found(exe, programs):
        return None
    from kubesim.kubelet.images import image_repository

    if shell.rsplit("/", 1)[-1] == "bash":
        return f"bash: line 1: {exe}: " + ("No such file or directory" if "/" in exe else "command not found")
    debian = IMAGE_PROGRAMS[image_repository(image)][0] is DEBIAN and programs & {"dash"}
    return f"sh: 1: {exe}: not found" if debian else f"sh: {exe}: not found"
