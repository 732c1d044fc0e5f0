"""inputs: Kubernetes manifests -> SGLang launch commands (every container of every document)."""

from __future__ import annotations

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from flagscan.inputs import yamlsrc
from flagscan.inputs.model import LaunchCommand, Source, Word
from flagscan.inputs.shell import ShellReader
from flagscan.inputs.subst import kube_expand


def is_manifest(root: Node) -> bool:
    return isinstance(root, MappingNode) and yamlsrc.text(yamlsrc.get(root, "kind")) is not None \
        and yamlsrc.get(root, "apiVersion") is not None


def containers(root: Node) -> list[MappingNode]:
    """Containers wherever a pod template puts them (Deployment, StatefulSet, Job, CronJob, Pod,
    List, and custom resources such as LeaderWorkerSet that embed pod templates)."""
    found: list[MappingNode] = []
    for mapping in yamlsrc.walk(root):
        node = yamlsrc.get(mapping, "containers")
        if isinstance(node, SequenceNode):
            found.extend(item for item in node.value if isinstance(item, MappingNode))
    found.sort(key=lambda n: n.start_mark.index)
    return found


def _environment(container: MappingNode, notes: list[str]) -> dict[str, str | None]:
    """`env:` in order; a `value` may use `$(EARLIER)`; `valueFrom` is unknown here (None)."""
    env: dict[str, str | None] = {}
    node = yamlsrc.get(container, "env")
    for item in node.value if isinstance(node, SequenceNode) else []:
        name = yamlsrc.text(yamlsrc.get(item, "name"))
        if not name:
            continue
        value = yamlsrc.get(item, "value")
        if yamlsrc.get(item, "valueFrom") is not None:
            env[name] = None
        elif isinstance(value, ScalarNode) and not yamlsrc.is_null(value):
            env[name] = kube_expand(Word(str(value.value), (), 0, Source.of("", "")), env).text
        else:
            env[name] = ""
    if yamlsrc.get(container, "envFrom") is not None:
        notes.append("envFrom is not followed; variables from ConfigMaps and Secrets are unknown")
    return env


def read_k8s(source: Source, documents: list[Node] | None = None) -> list[LaunchCommand]:
    documents = documents if documents is not None else yamlsrc.compose_documents(source)
    commands: list[LaunchCommand] = []
    for root in documents:
        for container in containers(root):
            notes: list[str] = []
            env = _environment(container, notes)
            command = yamlsrc.words(yamlsrc.get(container, "command"), source)
            args = yamlsrc.words(yamlsrc.get(container, "args"), source) or []
            words = [kube_expand(w, env) for w in [*(command or []), *args]]
            if not words:
                continue
            image = yamlsrc.text(yamlsrc.get(container, "image")) or ""
            known = {k: v for k, v in env.items() if v is not None}
            reader = ShellReader(source, kind="k8s")
            bare = command is None and "sglang" in image.lower()
            reader.launch(words, known, 0, bare_args=bare, notes=tuple(notes))
            commands.extend(reader.commands)
    return commands
