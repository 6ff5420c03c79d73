"""Which image references exist: the registry side of an image pull.

kubesim pulls nothing; ``kubesim/data/image-tags.json.xz`` (made by tools/gen_image_tags.py from
the hand-maintained tools/image-tags.txt) lists real repositories and their tags. A pull of

- a known repository with a tag it does not have fails as containerd's resolver reports a
  manifest the registry answers 404 for (containerd ``remotes/docker/resolver.go``: ``<ref>:
  not found``, wrapped by the CRI plugin's PullImage as ``failed to pull and unpack image``), with
  gRPC code NotFound;
- a repository that is not in the data but is a near miss of one that is (``ngnix``,
  ``busybx``, ``registry.k8s.io/kube-apiservr``) fails as a repository that does not exist:
  Docker Hub answers 401 insufficient_scope (``pull access denied, repository does not exist or
  may require authorization``, code Unknown), other registries 404 (``not found``);
- anything else (a digest, an image or registry the data does not know) succeeds, as before.
  (A reference that does not parse, which a kubelet refuses as InvalidImageName, is not modelled.)

Reference parsing follows github.com/distribution/reference (normalize.go
ParseNormalizedNamed: the ``docker.io`` domain and ``library/`` path of familiar names;
reference.go: a tag after the last ``:`` of the last path component, a digest after ``@``), the
way pkg/kubelet/images/image_manager.go applies the default tag (applyDefaultImageTag) first.
"""

from __future__ import annotations

import functools
import json
import lzma
import os

from kubesim.api.record import FrozenRecord

DATA = os.path.join(os.path.dirname(__file__), "..", "data", "image-tags.json.xz")

# real Docker Hub official images that sit close to a known repository name: not typos
_REAL_NEIGHBOURS = frozenset({
    "mono", "rust", "swift", "julia", "kong", "solr", "nats", "unit", "odoo", "neo4j", "pypy", "jruby",
    "redmine", "drupal", "joomla", "storm", "spark", "flink", "kibana", "logstash", "emqx", "hitch",
    "varnish", "znc", "irssi", "adminer", "photon", "clearlinux", "mageia", "oraclelinux", "sl", "cirros",
    "crux", "alt", "docker", "gcc", "jetty", "tomee", "maven", "gradle", "groovy", "erlang", "elixir",
    "haxe", "clojure", "couchdb", "cassandra", "percona", "influxdb", "telegraf", "chronograf",
    "kapacitor", "matomo", "nextcloud", "owncloud", "sonarqube", "zookeeper", "httpd", "postgres",
    "memcached", "mongo-express", "phpmyadmin", "buildpack-deps", "archlinux", "almalinux", "busybox",
    "amazoncorretto", "sapmachine", "ibmjava", "crate", "aerospike", "arangodb", "couchbase", "rethinkdb",
    "orientdb", "spiped", "backdrop", "ghost", "node", "php", "perl", "ruby", "bash", "golang", "python",
})


class Reference(FrozenRecord):
    """A parsed image reference: ``domain``/``path``, ``tag`` (defaulted to latest without a
    digest) and ``digest``."""
    __slots__ = ("digest", "domain", "path", "tag")

    def __init__(self, domain: str, path: str, tag: str, digest: str):
        self.domain = domain
        self.path = path
        self.tag = tag
        self.digest = digest

    @property
    def familiar(self) -> str:
        """FamiliarName: ``nginx`` for docker.io/library/nginx, the full name elsewhere."""
        if self.domain == "docker.io":
            return self.path.removeprefix("library/")
        return f"{self.domain}/{self.path}"

    def __str__(self) -> str:
        out = f"{self.domain}/{self.path}"
        if self.tag:
            out += f":{self.tag}"
        if self.digest:
            out += f"@{self.digest}"
        return out


def parse_reference(image: str) -> Reference:
    """ParseNormalizedNamed plus the kubelet's default ``latest`` tag."""
    name, _, digest = image.partition("@")
    tag = ""
    head, sep, last = name.rpartition("/")
    if ":" in last:
        last, tag = last.split(":", 1)
        name = head + sep + last
    first, slash, rest = name.partition("/")
    if slash and ("." in first or ":" in first or first == "localhost"):
        domain, path = first, rest
    else:
        domain, path = "docker.io", name
    if domain == "index.docker.io":
        domain = "docker.io"
    if domain == "docker.io" and "/" not in path:
        path = "library/" + path
    if not tag and not digest:
        tag = "latest"
    return Reference(domain, path, tag, digest)


@functools.lru_cache(maxsize=1)
def repositories() -> dict[str, frozenset[str]]:
    with lzma.open(DATA, "rt", encoding="utf-8") as f:
        data = json.load(f)
    return {repo: frozenset(tags) for repo, tags in data["repositories"].items()}


def _distance(a: str, b: str) -> int:
    """Optimal string alignment distance (a transposition counts once)."""
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        prev2, prev = prev, cur
    return prev[-1]


def near_miss(familiar: str) -> str | None:
    """The known repository ``familiar`` is a typo of, if any."""
    if familiar in _REAL_NEIGHBOURS:
        return None
    last = familiar.rsplit("/", 1)[-1]
    limit = 1 if len(last) <= 5 else 2
    best = None
    prefix = familiar.rpartition("/")[0]
    for repo in repositories():
        if abs(len(repo) - len(familiar)) > limit or repo.rpartition("/")[0] != prefix:
            continue
        d = _distance(repo, familiar)
        if 0 < d <= limit and (best is None or d < best[0]):
            best = (d, repo)
    return best[1] if best else None


def pull_error(image: str) -> tuple[str, str] | None:
    """(gRPC code, containerd's error) of pulling ``image``, or None when the pull succeeds."""
    ref = parse_reference(image)
    if ref.digest or ref.familiar != ref.familiar.lower():
        return None  # by digest: not checked; upper case: InvalidImageName, not modelled
    repos = repositories()
    full = str(ref)
    resolve = f'failed to pull and unpack image "{full}": failed to resolve reference "{full}": '
    tags = repos.get(ref.familiar)
    if tags is not None:
        return None if ref.tag in tags else ("NotFound", resolve + f"{full}: not found")
    if near_miss(ref.familiar) is None:
        return None
    if ref.domain == "docker.io":
        return ("Unknown", resolve + "pull access denied, repository does not exist or may require "
                "authorization: server message: insufficient_scope: authorization failed")
    return ("NotFound", resolve + f"{full}: not found")
