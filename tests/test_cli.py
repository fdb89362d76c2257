"""The headroom command itself."""

from __future__ import annotations

from app.cli import main


def test_sim_commands_say_which_extra_is_missing(monkeypatch, capsys):
    """The service installs without the sim extra; its commands then explain, not crash."""
    import builtins

    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name.split(".")[0] == "matplotlib":
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return real_import(name, *args, **kwargs)

    monkeypatch.delitem(__import__("sys").modules, "app.sim.dra.reproduce", raising=False)
    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    assert main(["reproduce", "dra", "--quick", "--out", "/tmp/unused"]) == 2
    assert "pip install -e '.[sim]'" in capsys.readouterr().err
