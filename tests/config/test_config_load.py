"""Discovery order (SPEC 6.2), environment variables, merge semantics, substitution, config dirs."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from forge_tools.config import CONFIG_FILE_ORDER, LoadedConfig, LoadOptions, load_config
from forge_tools.config.merge import merge
from forge_tools.errors import ConfigError
from forge_tools.origin import Node, Origin


def write(path: Path, data: object | str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=2))
    return path


def load(cwd: Path, project: Path | None = None, overlays: tuple[Path, ...] = ()) -> LoadedConfig:
    return load_config(LoadOptions(cwd=cwd, project=project, overlays=overlays))


def username_from(loaded: LoadedConfig) -> str:
    node = loaded.tree.get("username")
    assert node is not None
    return str(node.value)


# ---------------------------------------------------------------------------------------------- merge


def test_merge_keeps_first_position_and_takes_later_value_and_origin() -> None:
    a = Node.from_plain({"permission": {"*": "ask", "bash": {"ls": "allow"}, "edit": "deny"}},
                        Origin("file", path="a"))
    b = Node.from_plain({"permission": {"webfetch": "deny", "*": "allow", "bash": {"rm": "deny"}}},
                        Origin("file", path="b"))
    merged = merge(a, b)
    p = merged.get("permission")
    assert p is not None
    assert list(p.value) == ["*", "bash", "edit", "webfetch"]
    assert p.plain()["bash"] == {"ls": "allow", "rm": "deny"}
    star = p.get("*")
    assert star is not None and star.value == "allow" and star.origin.path == "b"
    edit = p.get("edit")
    assert edit is not None and edit.origin.path == "a"


def test_merge_plugin_and_instruction_lists_concatenate_other_lists_replace() -> None:
    a = Node.from_plain({"plugin": ["x", "y"], "instructions": ["one", "both"],
                         "disabled_providers": ["p"]}, Origin("file", path="a"))
    b = Node.from_plain({"plugin": ["y", "z"], "instructions": ["both", "two"],
                         "disabled_providers": ["q"]}, Origin("file", path="b"))
    merged = merge(a, b).plain()
    assert merged["plugin"] == ["x", "y", "z"]
    assert merged["instructions"] == ["one", "both", "two"]  # as opencode 1.18.33 joins them
    assert merged["disabled_providers"] == ["q"]


def test_merge_scalar_replaces_map() -> None:
    a = Node.from_plain({"provider": {"x": {"a": 1}}}, Origin("file", path="a"))
    b = Node.from_plain({"provider": {"x": "off"}}, Origin("file", path="b"))
    assert merge(a, b).plain() == {"provider": {"x": "off"}}


def test_merge_one_action_permission_is_the_star_rule() -> None:
    a = Node.from_plain({"permission": {"bash": "ask"}}, Origin("file", path="a"))
    b = Node.from_plain({"permission": "deny"}, Origin("file", path="b"))
    assert merge(a, b).plain() == {"permission": {"bash": "ask", "*": "deny"}}
    assert merge(b, a).plain() == {"permission": {"*": "deny", "bash": "ask"}}
    assert merge(b, b).plain() == {"permission": "deny"}


# ------------------------------------------------------------------------------------------ discovery


def test_no_config_at_all(project: Path) -> None:
    loaded = load(project)
    assert loaded.tree.plain() == {}
    assert loaded.sources == []
    assert loaded.project_root == project.resolve()


def test_full_load_order(project: Path, isolated_env: dict[str, Path],
                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Every step of SPEC 6.2 writes `username`; each later one must win, and all are listed in order."""
    home = isolated_env["home"]
    sub = project / "pkg" / "sub"
    sub.mkdir(parents=True)
    steps = [
        (home / ".config" / "opencode" / "config.json", "opencode-global-legacy"),
        (home / ".config" / "opencode" / "opencode.json", "opencode-global"),
        (home / ".config" / "opencode" / "opencode.jsonc", "opencode-global-jsonc"),
        (home / ".config" / "forge" / "forge.json", "global"),
        (home / "oc-env.json", "OPENCODE_CONFIG"),
        (home / "env.json", "FORGE_CONFIG"),
        (project / "forge.json", "project-root"),
        (sub / "forge.yaml", "project-cwd"),
        # opencode applies nested .opencode/ dirs from the cwd up to the root: the root's wins
        (sub / ".opencode" / "opencode.json", "opencode-dir-cwd"),
        (project / ".opencode" / "opencode.json", "opencode-dir-root"),
        (project / ".forge" / "forge.json", "forge-dir-root"),
        (sub / ".forge" / "forge.toml", "forge-dir-cwd"),
        (home / ".opencode" / "opencode.json", "home-opencode"),
        (home / "oc-extra" / "opencode.json", "OPENCODE_CONFIG_DIR"),
        (home / "extra" / "forge.json", "FORGE_CONFIG_DIR"),
    ]
    for path, model in steps:
        write(path, f'username = "{model}"\n' if path.suffix == ".toml" else json.dumps({"username": model}))
    file_vars = {4: "OPENCODE_CONFIG", 5: "FORGE_CONFIG"}
    for i, name in file_vars.items():
        monkeypatch.setenv(name, str(steps[i][0]))
    monkeypatch.setenv("OPENCODE_CONFIG_DIR", str(home / "oc-extra"))
    monkeypatch.setenv("FORGE_CONFIG_DIR", str(home / "extra"))
    for i in range(len(steps), 0, -1):  # remove sources from the top: the next one down must show
        loaded = load(sub)
        assert [str(s.path) for s in loaded.sources] == [str(p) for p, _ in steps[:i]]
        assert username_from(loaded) == steps[i - 1][1]
        steps[i - 1][0].unlink()
        if i - 1 in file_vars:
            monkeypatch.delenv(file_vars[i - 1])  # a *_CONFIG naming a missing file is an error
    monkeypatch.setenv("OPENCODE_CONFIG_CONTENT", '{"username": "oc-inline"}')
    assert username_from(load(sub)) == "oc-inline"
    monkeypatch.setenv("FORGE_CONFIG_CONTENT", '{"username": "inline"}')
    overlay = write(project / "over.jsonc", '{"username": "overlay", // c\n}')
    loaded = load(sub, overlays=(overlay,))
    assert username_from(loaded) == "overlay"
    assert [s.step for s in loaded.sources] == ["OPENCODE_CONFIG_CONTENT", "FORGE_CONFIG_CONTENT", "--config"]
    assert username_from(load(sub)) == "inline"


def test_missing_forge_config_file_is_an_error(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORGE_CONFIG", str(project / "gone.json"))
    with pytest.raises(ConfigError, match="no such config file"):
        load(project)


def test_file_order_within_one_directory(project: Path) -> None:
    for name in CONFIG_FILE_ORDER:
        text = f'username = "{name}"\n' if name.endswith(".toml") else (
            f"username: {name}\n" if name.endswith((".yaml", ".yml")) else json.dumps({"username": name}))
        write(project / name, text)
    loaded = load(project)
    assert [s.path.name for s in loaded.sources if s.path] == list(CONFIG_FILE_ORDER)
    assert username_from(loaded) == CONFIG_FILE_ORDER[-1]
    (project / CONFIG_FILE_ORDER[-1]).unlink()
    assert username_from(load(project)) == CONFIG_FILE_ORDER[-2]


def test_opencode_jsonc_overrides_opencode_json_and_forge_files_override_both(project: Path) -> None:
    """opencode 1.18.33 reads opencode.json, then opencode.jsonc (the .jsonc wins); forge's own files
    come last."""
    write(project / "opencode.json", {"model": "p/json", "small_model": "json", "username": "json"})
    write(project / "opencode.jsonc", '{"model": "p/jsonc", "small_model": "jsonc"}')
    loaded = load(project)
    assert (loaded.data.model, loaded.data.small_model, loaded.data.username) == ("p/jsonc", "jsonc", "json")
    write(project / "forge.yaml", "model: p/forge\n")
    assert load(project).data.model == "p/forge"


def test_nearest_project_file_wins_and_stops_at_root(project: Path, tmp_path: Path) -> None:
    write(tmp_path / "forge.json", {"username": "above-root"})  # outside the git worktree: never read
    write(project / "forge.json", {"username": "root", "default_agent": "plan"})
    sub = project / "a"
    write(sub / "forge.json", {"username": "near"})
    loaded = load(sub)
    assert username_from(loaded) == "near"
    assert loaded.tree.plain()["default_agent"] == "plan"
    assert all("above-root" not in str(s.path) for s in loaded.sources)


def test_project_root_is_git_top_or_option(project: Path, tmp_path: Path) -> None:
    sub = project / "x" / "y"
    sub.mkdir(parents=True)
    assert load(sub).project_root == project.resolve()
    (project / ".git").rmdir()
    (project / ".git").write_text("gitdir: elsewhere\n")  # a worktree's .git file counts too
    assert load(sub).project_root == project.resolve()
    other = tmp_path / "other"
    write(other / "forge.json", {"username": "other"})
    loaded = load(sub, project=other)
    assert loaded.project_root == other.resolve()
    assert username_from(loaded) == "other"  # cwd outside the root: the root's own files still load


def test_disable_project_config(project: Path, isolated_env: dict[str, Path],
                                monkeypatch: pytest.MonkeyPatch) -> None:
    write(isolated_env["home"] / ".config" / "forge" / "forge.json", {"username": "global"})
    write(project / "forge.json", {"username": "project"})
    write(project / ".forge" / "forge.json", {"username": "project-dir"})
    assert username_from(load(project)) == "project-dir"
    monkeypatch.setenv("FORGE_DISABLE_PROJECT_CONFIG", "1")
    loaded = load(project)
    assert username_from(loaded) == "global"
    assert project.resolve() / ".forge" not in loaded.config_dirs


def test_forge_permission_is_merged_into_permission(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(project / "forge.json", {"permission": {"bash": "ask", "edit": "deny"}})
    monkeypatch.setenv("FORGE_PERMISSION", '{"edit": "allow", "webfetch": "deny"}')
    loaded = load(project)
    assert loaded.tree.plain()["permission"] == {"bash": "ask", "edit": "allow", "webfetch": "deny"}
    edit = loaded.tree.value["permission"].get("edit")
    assert str(edit.origin) == "env FORGE_PERMISSION: edit"
    assert loaded.sources[-1].step == "FORGE_PERMISSION"


def test_config_dirs_and_plugin_specs(project: Path, isolated_env: dict[str, Path],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    home = isolated_env["home"]
    (home / ".config" / "forge").mkdir(parents=True)
    (home / ".forge").mkdir()
    sub = project / "sub"
    (sub / ".forge").mkdir(parents=True)
    (project / ".forge").mkdir()
    (project / ".opencode").mkdir()
    (home / "extra").mkdir()
    monkeypatch.setenv("FORGE_CONFIG_DIR", str(home / "extra"))
    write(project / ".forge" / "forge.json", {"plugin": ["a", "./local.py"]})
    write(sub / "forge.yaml", "plugin: [a, b]\n")
    loaded = load(sub)
    assert loaded.config_dirs == [
        (home / ".config" / "forge").resolve(),
        (project / ".opencode").resolve(),
        (project / ".forge").resolve(),
        (sub / ".forge").resolve(),
        (home / ".forge").resolve(),
        (home / "extra").resolve(),
    ]
    specs = [(s.spec, s.base_dir, s.origin.line) for s in loaded.plugin_specs]
    # project files (step 3) load before .forge/ dirs (step 4); the repeated "a" is kept at its last
    # place, as opencode 1.18.33 keeps a plugin (tests/compat/layouts/config-merge)
    assert specs == [
        ("b", sub.resolve(), 1),
        ("a", (project / ".forge").resolve(), 3),
        ("./local.py", (project / ".forge").resolve(), 4),
    ]


def test_env_and_file_substitution(project: Path, isolated_env: dict[str, Path],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_MODEL", "prov/model")
    monkeypatch.delenv("NOT_SET_ANYWHERE", raising=False)
    write(project / "prompts" / "plan.txt", "Plan carefully.\n")
    write(isolated_env["home"] / "desc.txt", "from home")
    write(project / "forge.json", {
        "model": "{env:MY_MODEL}",
        "small_model": "x{env:NOT_SET_ANYWHERE}y",
        "agent": {"plan": {"prompt": "{file:prompts/plan.txt}", "description": "{file:~/desc.txt}"}},
    })
    data = load(project).tree.plain()
    assert data["model"] == "prov/model"
    assert data["small_model"] == "xy"
    assert data["agent"]["plan"] == {"prompt": "Plan carefully.", "description": "from home"}


def test_file_substitution_is_relative_to_the_file(project: Path) -> None:
    write(project / ".forge" / "note.txt", "dir note")
    write(project / ".forge" / "forge.json", {"username": "{file:note.txt}"})
    assert username_from(load(project)) == "dir note"


def test_nothing_is_half_applied(project: Path) -> None:
    write(project / "forge.json", {"username": "fine"})
    write(project / ".forge" / "forge.json", {"username": "{file:missing.txt}"})
    with pytest.raises(ConfigError) as info:
        load(project)
    assert info.value.origin is not None and info.value.origin.path == str(project.resolve() / ".forge" /
                                                                          "forge.json")


def test_missing_overlay_is_an_error(project: Path) -> None:
    with pytest.raises(ConfigError, match="no such config file"):
        load(project, overlays=(Path("nope.json"),))


def test_load_does_not_touch_os_environ_when_env_given(project: Path) -> None:
    write(project / "forge.json", {"username": "{env:ONLY_HERE}"})
    loaded = load_config(LoadOptions(cwd=project, env={**os.environ, "ONLY_HERE": "given"}))
    assert username_from(loaded) == "given"
    assert "ONLY_HERE" not in os.environ


def test_one_action_permission_merges_as_its_map(project: Path, isolated_env: dict[str, Path],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A global `permission: deny` must survive a project that adds one allow (it meant `* deny`)."""
    from forge_tools.permission.agents import load_agents
    from forge_tools.permission.evaluate import evaluate

    write(isolated_env["home"] / ".config" / "forge" / "forge.json", {"permission": "deny",
                                                       "agent": {"plan": {"permission": "ask"}}})
    write(project / "forge.json", {"permission": {"bash": {"git status": "allow"}},
                                   "agent": {"plan": {"permission": {"read": "allow"}}}})
    loaded = load(project)
    assert loaded.tree.plain()["permission"] == {"*": "deny", "bash": {"git status": "allow"}}
    star = loaded.node_at("permission", "*")
    assert star is not None and star.origin.path is not None and star.origin.path.endswith("forge.json")
    agents = load_agents(loaded)
    assert evaluate("webfetch", "https://x", agents["build"].ruleset).action == "deny"
    assert evaluate("bash", "git status", agents["build"].ruleset).action == "allow"
    assert loaded.tree.plain()["agent"]["plan"]["permission"] == {"*": "ask", "read": "allow"}
    # and the other way round: a later one-action form is `*` merged into the map
    monkeypatch.setenv("FORGE_PERMISSION", '"ask"')
    assert load(project).tree.plain()["permission"] == {"*": "ask", "bash": {"git status": "allow"}}


def test_dangling_symlink_config_says_where_it_points(project: Path) -> None:
    (project / "forge.json").symlink_to("../shared/forge.json")
    with pytest.raises(ConfigError) as info:
        load(project)
    message = info.value.message
    assert "broken symlink" in message and "../shared/forge.json" in message
    assert str(project / ".." / "shared" / "forge.json") in message
    assert "no such config file" not in message


def test_dangling_symlink_in_a_file_substitution_says_so(project: Path) -> None:
    (project / "prompt.txt").symlink_to("/nonexistent/prompt.txt")
    write(project / "forge.json", {"username": "{file:prompt.txt}"})
    with pytest.raises(ConfigError, match=r"broken symlink to /nonexistent/prompt\.txt, which does not"):
        load(project)
