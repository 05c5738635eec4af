"""The specifier aliases of a workspace's tsconfig.json or jsconfig.json (read, never run)."""

from __future__ import annotations

import pytest

from codequorum.ingest.ts_config import (
    MAX_COMMENTED_CHARS,
    MAX_CONFIG_CHARS,
    Aliases,
    nearest_aliases,
)


def reader(files: dict[str, str]):  # type: ignore[no-untyped-def]
    return files.get


BASE = """{
  // comments and trailing commas, as tsconfig files are written
  "compilerOptions": {
    "baseUrl": "./src",
    "paths": {
      "@/*": ["./*", "generated/*"],   /* "/*" inside a string is no comment */
      "@lib": ["lib/index.ts"],
      "@lib/*": ["lib/parts/*"],
      "@lib/deep/*": ["lib/deep/*"],
      "~out/*": ["../../elsewhere/*"],
      "/abs/*": ["/etc/*"],
    },
  },
}
"""


def test_patterns_match_as_the_compiler_matches_them() -> None:
    found = nearest_aliases(reader({"tsconfig.json": BASE}), "src/app")
    assert found is not None and found.base == "src"
    assert found.candidates("@/util/text") == ["src/util/text", "src/generated/util/text",
                                               "src/@/util/text"]
    assert found.candidates("@lib")[0] == "src/lib/index.ts"  # exact before any wildcard
    assert found.candidates("@lib/deep/x")[0] == "src/lib/deep/x"  # the longest prefix
    assert found.candidates("@lib/x")[0] == "src/lib/parts/x"
    assert found.candidates("lodash") == ["src/lodash"]  # under baseUrl, then a package
    assert found.candidates("~out/x") == ["src/~out/x"]  # a target out of the workspace
    assert found.candidates("/abs/passwd") == []  # an absolute target, and no path under it


def test_extends_is_followed_and_the_file_that_sets_paths_places_them() -> None:
    files = {
        "configs/base.json": '{"compilerOptions": {"paths": {"#ui/*": ["../ui/*"]}}}',
        "packages/web/tsconfig.json": '{"extends": "../../configs/base", "include": ["src"]}',
    }
    found = nearest_aliases(reader(files), "packages/web/src/pages")
    assert found == Aliases((("#ui/*", ("ui/*",)),), None)  # relative to configs/
    files["packages/web/tsconfig.json"] = ('{"extends": ["../../configs/base", "./own"], '
                                           '"compilerOptions": {"baseUrl": "."}}')
    files["packages/web/own.json"] = '{"compilerOptions": {"paths": {"#ui/*": ["x/*"]}}}'
    found = nearest_aliases(reader(files), "packages/web/src")
    assert found == Aliases((("#ui/*", ("packages/web/x/*",)),), "packages/web")


def test_a_list_of_thousands_of_extends_reads_a_few_configurations() -> None:
    """``"extends": ["./b.json" x 20000]`` read b.json 20,000 times for every folder of the
    view; the last entries win, and at most MAX_EXTENDS configurations are read."""
    from codequorum.ingest.ts_config import MAX_EXTENDS

    asked: list[str] = []
    files = {"tsconfig.json": '{"extends": [' + ", ".join(['"./b.json"'] * 20_000)
             + ', "./c.json"]}', "b.json": "{}",
             "c.json": '{"compilerOptions": {"paths": {"@/*": ["src/*"]}}}'}

    def read(rel: str) -> str | None:
        asked.append(rel)
        return files.get(rel)

    found = nearest_aliases(read, "src")
    assert found == Aliases((("@/*", ("src/*",)),), None)  # the last entry wins
    assert len(asked) <= MAX_EXTENDS + 4, len(asked)


@pytest.mark.parametrize("text", [
    "{ not json", "[1, 2]", '{"compilerOptions": {"paths": {"@/*": "src/*"}}}',
    '{"compilerOptions": {"target": "es2022"}}', '{"extends": "@tsconfig/node20"}',
    "{" * 5000 + "}" * 5000, '{"x": "' + "a" * MAX_CONFIG_CHARS + '"}',
])
def test_a_configuration_that_maps_nothing_gives_no_aliases(text: str) -> None:
    found = nearest_aliases(reader({"tsconfig.json": text}), "src")
    assert found is None or found.candidates("@/x") == []


def test_the_nearest_configuration_wins_and_jsconfig_counts() -> None:
    files = {"tsconfig.json": BASE,
             "web/jsconfig.json": '{"compilerOptions": {"paths": {"@/*": ["src/*"]}}}'}
    found = nearest_aliases(reader(files), "web/src/a")
    assert found is not None and found.candidates("@/x") == ["web/src/x"]
    assert nearest_aliases(reader({}), "a/b") is None
    cycle = {"tsconfig.json": '{"extends": "./tsconfig.json", "compilerOptions": '
                              '{"baseUrl": "."}}'}
    assert nearest_aliases(reader(cycle), "") == Aliases((), "")


def test_a_large_configuration_is_read_as_plain_json_only() -> None:
    """Plain JSON is read up to the bound; one with comments only up to the smaller one
    (its reader is slow on a hostile file)."""
    many = ",".join(f'"@p{i}/*": ["p{i}/*"]' for i in range(MAX_COMMENTED_CHARS // 16))
    plain = '{"compilerOptions": {"paths": {' + many + "}}}"
    assert MAX_COMMENTED_CHARS < len(plain) < MAX_CONFIG_CHARS
    found = nearest_aliases(reader({"tsconfig.json": plain}), "")
    assert found is not None and found.candidates("@p7/x") == ["p7/x"]
    commented = "// big\n" + plain
    assert nearest_aliases(reader({"tsconfig.json": commented}), "") is None
