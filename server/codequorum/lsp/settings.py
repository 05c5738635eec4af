"""The language server's settings: one typed, validated object.

Settings arrive as ``initializationOptions``, in ``workspace/didChangeConfiguration`` and
from ``workspace/configuration`` (section ``codequorum``). Each is read by
:func:`parse_settings` into a frozen :class:`Settings`; a value of the wrong type or out of
range is replaced by its default and named in a warning, so a bad setting never stops the
server. The names, types, bounds and reach are those declared in
:data:`codequorum.options.declarations.SETTINGS` (``shared/settings.schema.json`` is written
from them). The dataclasses below are their typed form: a group's fields, defaults and
choices are the declared ones (``tests/lsp/test_settings.py`` fails when they part).

Every setting also says what it can do (:class:`~codequorum.options.policy.Reach`): one that
chooses the store, the endpoint, the key variable, the sandbox or whether versions run is
the user's alone. The editor sends such a setting from the user's settings only (VS Code:
``"scope": "machine"``), and :func:`folder_settings` keeps a workspace folder's own value of
it from counting, whatever the client.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from codequorum.core.report import Severity
from codequorum.generate.endpoint import DEFAULT_API_KEY_ENV, ProviderChoice, ProviderConfig
from codequorum.metrics.registry import metric_choice
from codequorum.options.declarations import SETTINGS, Setting
from codequorum.options.policy import Reach
from codequorum.pipeline.config import AnalysisConfig

PREFIX = "codequorum."

ProviderKind = Literal["openai-compatible", "client"]
CommandActions = Literal["auto", "always", "never"]
WatchMode = Literal["off", "ask", "auto"]


@dataclass(frozen=True)
class StoreSettings:
    """Where the version store lives ("" means ``<workspace>/.codequorum/samples.sqlite3``)."""

    path: str = ""


@dataclass(frozen=True)
class ProviderSettings(ProviderChoice):
    """Who generates new versions and how (OpenAI-compatible chat completions)."""

    kind: ProviderKind = "openai-compatible"
    api_key_env: str = DEFAULT_API_KEY_ENV

    def config(self, versions: int | None = None) -> ProviderConfig:
        """The client configuration these settings stand for (``versions`` asked for)."""
        shared = {f.name: getattr(self, f.name) for f in dataclasses.fields(ProviderChoice)}
        if versions is not None:
            shared["versions"] = versions
        return ProviderConfig(api_key_env=self.api_key_env or None, **shared)


@dataclass(frozen=True)
class DiagnosticsSettings:
    """When and what to report as diagnostics."""

    enable: bool = True
    on_type: bool = False
    debounce_ms: int = 500
    min_severity: Severity = "hint"


@dataclass(frozen=True)
class HoverSettings:
    """The hover summary."""

    enable: bool = True
    diff_lines: int = 12


@dataclass(frozen=True)
class CodeLensSettings:
    """Code lenses above functions."""

    enable: bool = True
    show_for_all: bool = False


@dataclass(frozen=True)
class CodeActionSettings:
    """Code actions: ``commands`` offers the commands (Regenerate, Compare, Run, Clear,
    Show Report) as code actions: ``auto`` for clients without code lenses."""

    commands: CommandActions = "auto"


@dataclass(frozen=True)
class DynamicSettings:
    """Sandboxed runs of the versions (SCTD, DCTD, BEF, OER): whether they may run and when
    (their timeout and isolation are analysis choices: ``Settings.analysis``)."""

    enable: bool = True
    #: Run the versions when they arrive (regenerated, relayed, imported, the watch's), in
    #: the strict sandbox only.
    auto: bool = True
    propose_inputs: bool = False


@dataclass(frozen=True)
class WatchSettings:
    """A function that arrives in one edit (an accepted completion, a chat or agent edit, a
    paste): ``mode`` ``off``, ``ask`` (a one-click offer; "always" or "never" is remembered
    per workspace) or ``auto`` (more versions asked for at once); at most ``max_per_hour``
    samplings in any hour."""

    mode: WatchMode = "ask"
    max_per_hour: int = 12


@dataclass(frozen=True)
class Settings:
    """Every server-side setting, grouped as in the schema."""

    store: StoreSettings = field(default_factory=StoreSettings)
    provider: ProviderSettings = field(default_factory=ProviderSettings)
    diagnostics: DiagnosticsSettings = field(default_factory=DiagnosticsSettings)
    hover: HoverSettings = field(default_factory=HoverSettings)
    code_lens: CodeLensSettings = field(default_factory=CodeLensSettings)
    code_action: CodeActionSettings = field(default_factory=CodeActionSettings)
    #: The analysis choices the editor's settings make (``analysis.*``, ``dynamic.timeout``,
    #: ``dynamic.sandbox``); the others keep their defaults.
    analysis: AnalysisConfig = field(default_factory=AnalysisConfig)
    dynamic: DynamicSettings = field(default_factory=DynamicSettings)
    watch: WatchSettings = field(default_factory=WatchSettings)
    #: False when the editor says the workspace is not trusted (not a schema setting: the
    #: client sends it as ``trusted``); then nothing runs and nothing is sent.
    trusted: bool = True


@dataclass(frozen=True)
class Spec:
    """One setting: its schema name, the attribute path, how to validate it, and what it
    can do (``reach``; ``project_values``: the values a workspace may still give a setting
    that is otherwise the user's alone)."""

    key: str
    group: str
    attr: str
    kind: Literal["string", "integer", "number", "boolean", "integer?", "boolean?", "strings"]
    minimum: float | None = None
    maximum: float | None = None
    exclusive_minimum: bool = False
    enum: tuple[str, ...] = ()
    reach: Reach = field(kw_only=True)
    project_values: tuple[object, ...] = field(default=(), kw_only=True)
    #: The setting that replaced this one ("": not deprecated).
    deprecated: str = field(default="", kw_only=True)

    def workspace_may_give(self, value: object) -> bool:
        """Whether a workspace folder's settings may give ``value``."""
        return self.reach.project_may_set or any(
            value is v or (type(value) is type(v) and value == v) for v in self.project_values)

    @property
    def default(self) -> Any:
        """The default, read from the dataclass so there is one source of truth (a
        deprecated spelling has none: null leaves the setting that replaced it alone)."""
        if self.deprecated:
            return None
        group_cls = {f.name: f for f in dataclasses.fields(Settings)}[self.group]
        factory = group_cls.default_factory
        assert factory is not dataclasses.MISSING
        return getattr(factory(), self.attr)


def _spec(setting: Setting) -> Spec:
    """The language server's view of a declared setting."""
    group, attr = setting.path
    return Spec(setting.name, group, attr, setting.type, setting.minimum, setting.maximum,
                setting.exclusive_minimum, setting.enum, reach=setting.reach,
                project_values=setting.project_values, deprecated=setting.deprecated)


#: Every server-side setting (schema name -> where it goes, what it accepts, what it can
#: do), from the declarations.
SPECS: tuple[Spec, ...] = tuple(_spec(s) for s in SETTINGS if not s.client)

#: Settings the editor client reads (``"x-codequorum-scope": "client"`` in the schema), and
#: what each can do; the server accepts and ignores them.
CLIENT_ONLY: dict[str, Reach] = {s.name: s.reach for s in SETTINGS if s.client}

#: The key by which the client says whether the workspace is trusted.
TRUSTED = "trusted"

_BY_KEY = {s.key: s for s in SPECS}


def flatten(raw: Any) -> dict[str, Any]:
    """Dotted keys without the ``codequorum.`` prefix, from nested or flat input.

    Accepts ``{"codequorum": {...}}``, ``{"provider": {"model": ...}}``,
    ``{"codequorum.provider.model": ...}`` and mixtures.
    """
    out: dict[str, Any] = {}

    def walk(prefix: str, value: Any) -> None:
        if isinstance(value, Mapping) and (prefix == "" or prefix not in _BY_KEY):
            for k, v in value.items():
                walk(f"{prefix}.{k}" if prefix else str(k), v)
        else:
            key = prefix[len(PREFIX) :] if prefix.startswith(PREFIX) else prefix
            out[key] = value

    if isinstance(raw, Mapping):
        walk("", raw)
    return out


def _check(spec: Spec, value: Any) -> tuple[Any, str | None]:
    """The accepted value, or None and why it was refused."""
    kind = spec.kind
    if kind == "boolean?" and value is None:
        return None, None
    if kind in ("boolean", "boolean?"):
        return (value, None) if isinstance(value, bool) else (None, "expected true or false")
    if kind == "strings":
        return _strings(spec, value)
    if kind == "string":
        if not isinstance(value, str):
            return None, "expected a string"
        if spec.enum and value not in spec.enum:
            return None, f"expected one of {', '.join(spec.enum)}"
        return value, None
    if kind == "integer?" and value is None:
        return None, None
    is_int = isinstance(value, int) and not isinstance(value, bool)
    is_integral_float = isinstance(value, float) and value.is_integer()
    if kind in ("integer", "integer?"):
        if not (is_int or is_integral_float):
            return None, "expected a whole number"
        number: float = int(value)
    else:
        if not (is_int or isinstance(value, float)) or not math.isfinite(float(value)):
            return None, "expected a number"
        number = float(value)
    if spec.minimum is not None:
        if spec.exclusive_minimum and number <= spec.minimum:
            return None, f"must be greater than {spec.minimum:g}"
        if not spec.exclusive_minimum and number < spec.minimum:
            return None, f"must be at least {spec.minimum:g}"
    if spec.maximum is not None and number > spec.maximum:
        return None, f"must be at most {spec.maximum:g}"
    return number, None


def _strings(spec: Spec, value: Any) -> tuple[Any, str | None]:
    """A list of strings (of ``spec.enum`` when it has one: each once, in its order)."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return None, "expected a list of strings"
    if not spec.enum:
        return tuple(value), None
    unknown = [v for v in value if v not in spec.enum]
    if unknown:
        return None, f"unknown {_short(unknown[0])}: expected some of {', '.join(spec.enum)}"
    return tuple(e for e in spec.enum if e in value), None


def _fold_tsed(metrics: tuple[str, ...], tsed: bool) -> tuple[str, ...]:
    """``analysis.metrics`` after the deprecated ``analysis.tsed``: true adds TSED, false
    takes it out."""
    return metric_choice({*metrics, "tsed"} if tsed else set(metrics) - {"tsed"})


def _fold_deprecated(deprecated: Mapping[str, Any], groups: dict[str, dict[str, Any]],
                     settings: Settings) -> None:
    """Each deprecated spelling's value into ``groups``: ``analysis.tsed`` folds into
    ``analysis.metrics``; any other is a plain renaming, and wins over the new name (which an
    editor such as VS Code sends with its default even when the user never set it)."""
    for key, value in deprecated.items():
        if key == "analysis.tsed":
            analysis = groups.setdefault("analysis", {})
            analysis["metrics"] = _fold_tsed(
                analysis.get("metrics", settings.analysis.metrics), value)
            continue
        new = _BY_KEY[_BY_KEY[key].deprecated.removeprefix(PREFIX)]
        groups.setdefault(new.group, {})[new.attr] = value


def parse_settings(raw: Any, base: Settings | None = None,
                   *, deprecations: bool = True) -> tuple[Settings, list[str]]:
    """Settings from client-supplied JSON, and one warning per refused key.

    Keys missing from ``raw`` keep their value in ``base`` (defaults when ``base`` is
    None); refused values fall back to the default. Unknown keys are reported and ignored.
    A deprecated spelling still works, over the setting that replaced it, and is named in a
    warning (unless ``deprecations`` is false: a configuration file's option spells it).
    """
    settings = base or Settings()
    warnings: list[str] = []
    if raw is not None and not isinstance(raw, Mapping):
        warnings.append(
            f"codequorum settings must be an object, got {type(raw).__name__}; using defaults"
        )
        return Settings(), warnings
    groups: dict[str, dict[str, Any]] = {}
    deprecated: dict[str, Any] = {}
    trusted: bool | None = None
    for key, value in flatten(raw).items():
        if key == TRUSTED:
            if isinstance(value, bool):
                trusted = value
            else:
                warnings.append(f"invalid {TRUSTED} = {_short(value)}: expected true or false")
                trusted = False
            continue
        spec = _BY_KEY.get(key)
        if spec is None:
            if key not in CLIENT_ONLY and key != "":
                warnings.append(f"unknown setting {PREFIX}{key} ignored")
            continue
        accepted, problem = _check(spec, value)
        if problem is not None:
            warnings.append(
                f"invalid setting {PREFIX}{key} = {_short(value)}: {problem}; "
                f"using the default {_short(spec.default)}"
            )
            accepted = spec.default
        if spec.deprecated:
            if accepted is not None:
                deprecated[key] = accepted
                if deprecations:
                    warnings.append(f"{PREFIX}{key} is deprecated: use {spec.deprecated}")
            continue
        groups.setdefault(spec.group, {})[spec.attr] = accepted
    _fold_deprecated(deprecated, groups, settings)
    if trusted is not None:
        settings = dataclasses.replace(settings, trusted=trusted)
    if not groups:
        return settings, warnings
    changes = {
        name: dataclasses.replace(getattr(settings, name), **attrs)
        for name, attrs in groups.items()
    }
    return dataclasses.replace(settings, **changes), warnings


def from_settings(settings: Settings) -> AnalysisConfig:
    """The analysis configuration the editor's settings stand for: the ``analysis.*``
    settings with the sandbox's timeout and level (the declared settings keep them in
    ``Settings.analysis``), every other choice at its default."""
    return settings.analysis


def folder_settings(
    folder_raw: Any, user_raw: Any, folder: str
) -> tuple[dict[str, Any], list[str]]:
    """A workspace folder's settings (``workspace/configuration`` asked with its scopeUri)
    with the user's own value (``user_raw``, asked without one) of every setting only the
    user may choose: a folder's own value of such a setting (its ``.vscode/settings.json``
    travels with the repository) does not count, and is one warning."""
    given = flatten(folder_raw)
    users = flatten(user_raw)
    out = dict(given)
    warnings: list[str] = []
    for key, value in given.items():
        spec = _BY_KEY.get(key)
        if spec is None or spec.workspace_may_give(value):
            continue
        if key in users and users[key] == value and type(users[key]) is type(value):
            continue
        if key in users:
            out[key] = users[key]
        else:
            del out[key]
        warnings.append(
            f"the settings of the workspace folder {folder} give {PREFIX}{key} = "
            f"{_short(value)}: a workspace's settings {spec.reach.refusal}; set it in your "
            "user settings"
        )
    return out, warnings


def _short(value: Any) -> str:
    import json

    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def file_settings(root: str | None) -> tuple[Settings, list[str]]:
    """The workspace's defaults from its ``codequorum.toml`` / ``[tool.codequorum]`` and the
    user's ``config.toml`` (see :mod:`codequorum.options.config_file`), for :func:`parse_settings`
    to lay the editor's settings over; a bad file is one warning and no defaults."""
    from codequorum.core.errors import UserError
    from codequorum.options.config_file import ConfigError, not_read, workspace_defaults

    if not root:
        return Settings(), []
    refused: list[str] = []
    try:
        settings, warnings = parse_settings(workspace_defaults(root, refused),
                                            deprecations=False)
    except ConfigError as exc:
        return Settings(), [*refused, not_read(exc)]
    except UserError as exc:
        return Settings(), [*refused, str(exc)]
    return settings, [*refused, *warnings]
