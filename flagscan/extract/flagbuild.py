"""extract: a Flag fact from one registration's option strings and keywords (add_argument's, or
the ones the dataclass generator passes for a field)."""

from __future__ import annotations

import re
from typing import Any

from flagscan.extract import actions
from flagscan.extract.consteval import ClassRef, Evaluator, FuncRef, Opaque, _is_plain, _plainify
from flagscan.facts.flags import Flag, Location, UnknownValue


def build_flag(ev: Evaluator, rules: dict[str, Any], options: list[str],
               kwargs: dict[str, Any], texts: dict[str, str], location: Location) -> Flag:
    """A Flag from add_argument's option strings and evaluated keywords."""
    dep = rules["deprecation"]
    action_value = kwargs.pop("action", "store")
    if isinstance(action_value, ClassRef):
        facts = actions.custom(ev, action_value, kwargs, dep["action_markers"])
    elif isinstance(action_value, str):
        facts = actions.standard(action_value, kwargs)
    elif argparse_name := actions.argparse_class(texts.get("action", "")):
        facts = actions.standard(argparse_name, kwargs)
    else:
        facts = actions.ActionFacts(texts.get("action", "?"), kwargs.get("nargs"), kwargs.get("const"),
                                    kwargs.get("default"), "store", False, {})
    help_value = kwargs.get("help")
    help_text = help_value if isinstance(help_value, str) else ""
    deprecated = facts.deprecated or any(re.search(p, help_text) for p in dep["help_markers"])
    replacement = None
    for key in dep["replacement_keywords"]:
        value = kwargs.get(key, facts.extra.get(key))
        if isinstance(value, str):
            replacement = value
    if replacement is None and deprecated:
        replacement = actions.replacement_from_help(help_text, dep["replacement_patterns"])
    if facts.name == "BooleanOptionalAction":
        # argparse adds the negative spelling of every long option itself.
        options = options + ["--no-" + o[2:] for o in options if o.startswith("--")]
    dest_value = kwargs.get("dest")
    dest = dest_value if isinstance(dest_value, str) else _auto_dest(options)
    choices = kwargs.get("choices")
    type_value = kwargs.get("type")
    return Flag(
        dest=dest,
        options=tuple(options),
        location=location,
        type=_type_name(type_value, texts.get("type")),
        default=_fact_value(facts.default, texts.get("default")),
        choices=None if choices is None else _choices(choices, texts.get("choices")),
        action=facts.name,
        nargs=_fact_value(facts.nargs, texts.get("nargs")),
        const=_fact_value(facts.const, texts.get("const")),
        required=bool(kwargs.get("required") is True),
        help=help_text,
        deprecated=deprecated,
        replacement=replacement,
        semantics=facts.semantics,
        stored=_fact_value(facts.stored, None),
    )


def _auto_dest(options: list[str]) -> str:
    """argparse: the first long option (else the first), dashes stripped, '-' -> '_'."""
    longs = [o for o in options if o.startswith("--")]
    return (longs or options)[0].lstrip("-").replace("-", "_")


def _type_name(value: Any, text: str | None) -> str | None:
    """The conversion callable's name as argparse would hold it (`json.loads` -> `loads`)."""
    if value is None:
        return None
    if value in (int, float, str, bool):
        name: str = value.__name__
        return name
    if isinstance(value, (FuncRef, ClassRef)):
        return value.name
    if isinstance(value, Opaque) and re.fullmatch(r"[\w.]+", value.text):
        return value.text.rsplit(".", 1)[-1]
    return text or "unknown"


def _fact_value(value: Any, text: str | None) -> Any:
    if _is_plain(value):
        return _plainify(value)
    return UnknownValue(text or repr(value))


def _choices(value: Any, text: str | None) -> tuple[Any, ...] | UnknownValue:
    if isinstance(value, dict):
        value = list(value)
    if isinstance(value, (list, tuple, set, frozenset)) and _is_plain(list(value)):
        return tuple(_plainify(list(value) if not isinstance(value, (set, frozenset)) else value))
    return UnknownValue(text or "choices")
