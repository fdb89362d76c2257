"""The headroom command itself."""

from __future__ import annotations

import argparse
import builtins
import io
import json
import sys
from collections.abc import Iterator

import pytest
from sqlalchemy.engine import make_url

from app.cli import build_parser, main
from app.config import get_settings
from app.sim.progress import TextProgress
from app.store.migrate import head_revision, migrations_dir


def _fail_import_of(monkeypatch, package: str) -> None:
    """Make ``import package`` fail as it does where the sim extra is not installed."""
    real_import = builtins.__import__

    def fail(name, *args, **kwargs):
        if name.split(".")[0] == package:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return real_import(name, *args, **kwargs)

    for mod in [m for m in sys.modules if m.split(".")[0] == package]:
        monkeypatch.delitem(sys.modules, mod)
    monkeypatch.setattr(builtins, "__import__", fail)


def test_sim_commands_say_which_extra_is_missing(monkeypatch, capsys):
    """The service installs without the sim extra; its commands then explain, not crash."""
    monkeypatch.delitem(sys.modules, "app.sim.dra.reproduce", raising=False)
    _fail_import_of(monkeypatch, "matplotlib")
    assert main(["reproduce", "dra", "--quick", "--out", "/tmp/unused"]) == 2
    assert "pip install -e '.[sim]'" in capsys.readouterr().err


def test_plot_without_matplotlib_fails_while_parsing_not_after_the_run(monkeypatch, capsys):
    """`--plot` without matplotlib used to simulate for minutes and then fail."""
    import app.sim.dra.cli as dra_cli

    def must_not_run(args):
        raise AssertionError("the simulation ran although it could not plot")

    monkeypatch.setattr(dra_cli, "_simulate_dra", must_not_run)
    parser = build_parser()  # built before matplotlib goes missing, as in a real run
    _fail_import_of(monkeypatch, "matplotlib")
    with pytest.raises(SystemExit) as exc:
        parser.parse_args(["simulate", "dra", "--plot", "reward.png"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "matplotlib" in err and "pip install" in err and "[sim]" in err


def _parsers(parser: argparse.ArgumentParser, path: str = "headroom"
             ) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers(sub, f"{path} {name}")


def _subcommands(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for action in parser._actions if isinstance(action, argparse._SubParsersAction)
            for a in action._choices_actions]


def test_every_command_and_option_has_help_and_shows_its_default():
    for path, parser in _parsers(build_parser()):
        listed = {a.dest for a in _subcommands(parser) if a.help}
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                assert set(action.choices) == listed, f"{path}: a subcommand lacks a help line"
                continue
            if isinstance(action, argparse._HelpAction):
                continue
            name = "/".join(action.option_strings) or action.dest
            assert action.help and action.help != argparse.SUPPRESS, f"{path} {name}: no help"
            default = action.default
            if action.option_strings and action.nargs != 0 and default not in (None, [], ""):
                text = " ".join(parser.format_help().split())
                assert f"(default: {default})" in text or "%(default)" in action.help, \
                    f"{path} {name}: the help does not show the default {default!r}"


def test_top_level_help_lists_every_command_with_a_line(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    commands = _subcommands(build_parser())
    assert {c.dest for c in commands} >= {"serve", "migrate", "keys", "openapi", "bench",
                                          "bound", "simulate", "reproduce", "calibrate"}
    for c in commands:
        assert any(line.split()[:1] == [c.dest] and c.help.split()[0] in line
                   for line in out.splitlines()), f"{c.dest} is not listed with its help"


def test_progress_is_a_redrawn_line_on_a_terminal_and_plain_lines_in_a_file():
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    tty, log = Terminal(), io.StringIO()
    for stream in (tty, log):
        bar = TextProgress("sim", stream=stream, interval=0.0)
        for t in range(1, 4):
            bar(float(t), 3.0, 10 * t)
        bar.close()
    assert "\r" in tty.getvalue()
    assert "\r" not in log.getvalue()
    lines = log.getvalue().splitlines()
    assert len(lines) >= 3 and all(line.startswith("sim: t ") for line in lines)
    assert "(100.0%)" in lines[-1]


@pytest.fixture
def env_database(monkeypatch):
    """Point the CLI at a database URL through the environment, as an operator does."""
    def use(url: str) -> None:
        monkeypatch.setenv("HEADROOM_DATABASE_URL", url)
        get_settings.cache_clear()

    yield use
    get_settings.cache_clear()


def test_migrate_says_what_it_did(env_database, tmp_path, capsys):
    env_database(f"sqlite:///{tmp_path / 'm.db'}")
    head = head_revision(str(migrations_dir()))
    assert main(["migrate"]) == 0
    out = capsys.readouterr().out
    assert f"to {head}" in out and "from nothing" in out
    assert main(["migrate"]) == 0
    assert f"already at head ({head})" in capsys.readouterr().out
    assert main(["migrate", "--downgrade", "base"]) == 0
    assert f"from {head} to nothing" in capsys.readouterr().out


def test_keys_create_list_revoke(env_database, tmp_path, capsys):
    path = tmp_path / "k.db"
    env_database(f"sqlite:///{path}")
    assert main(["keys", "create", "--scope", "write", "--description", "ci"]) == 0
    captured = capsys.readouterr()
    secret = captured.out.strip()
    assert str(path) in captured.err  # says where the key went
    assert main(["keys", "list", "--json"]) == 0
    (key,) = json.loads(capsys.readouterr().out)
    assert key["scopes"] == ["write"] and key["description"] == "ci"
    assert key["revoked_at"] is None and secret not in json.dumps(key)
    assert main(["keys", "list"]) == 0
    table = capsys.readouterr().out
    assert key["id"] in table and "ci" in table
    assert main(["keys", "revoke", key["id"]]) == 0
    assert key["id"] in capsys.readouterr().err
    assert main(["keys", "revoke", key["id"]]) == 1  # already revoked
    assert "no active API key" in capsys.readouterr().err
    assert main(["keys", "list", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["revoked_at"] is not None


@pytest.mark.postgres
def test_keys_create_names_the_database_with_its_password_masked(env_database, pg_url, capsys):
    url = make_url(pg_url).set(password="hunter2")  # trust auth: any password connects
    env_database(url.render_as_string(hide_password=False))
    assert main(["keys", "create", "--scope", "read"]) == 0
    err = capsys.readouterr().err
    assert "hunter2" not in err
    assert url.render_as_string(hide_password=True) in err


def test_simulate_rms_says_what_it_runs_and_how_to_read_it(capsys):
    assert main(["simulate", "rms", "--duration", "5", "--policies", "rms,best_fit_queue"]) == 0
    out = capsys.readouterr().out
    head, *_, foot = out.strip().split("\n\n")
    assert "RMS" in head and "bf-instability" in head and "rms, best_fit_queue" in head
    assert "T=5" in head and "seed 1" in head
    assert "mean_queue" in foot and "unstable" in foot
    assert main(["simulate", "rms", "--duration", "5", "--policies", "rms", "--json"]) == 0
    json.loads(capsys.readouterr().out)  # the header and footer stay out of --json


def test_simulate_moment_says_what_it_runs_and_how_to_read_it(capsys):
    args = ["simulate", "moment", "--years", "0.01", "--capacity", "200", "--steps", "5",
            "--policies", "threshold"]
    assert main(args) == 0
    out = capsys.readouterr().out
    head, *_, foot = out.strip().split("\n\n")
    assert "200 cores" in head and "threshold" in head and "seed 0" in head
    assert "fail rate" in foot and "SLA" in foot
    assert main([*args, "--json"]) == 0
    json.loads(capsys.readouterr().out)


def test_simulate_moment_takes_a_cautious_start_as_a_declaration_would(capsys):
    args = ["simulate", "moment", "--years", "0.2", "--capacity", "2000", "--policies",
            "first_moment", "--json"]
    assert main(args) == 0
    plain = json.loads(capsys.readouterr().out)["results"][0]
    assert main([*args, "--cautious-growth", "2"]) == 0
    cautious = json.loads(capsys.readouterr().out)["results"][0]
    assert (cautious["admitted"], cautious["utilization"]) != (plain["admitted"], plain["utilization"])
    assert main([*args[:-1], "--cautious-growth", "2"]) == 0
    assert "cautious start λ ×2" in capsys.readouterr().out.replace("\n", " ")
    with pytest.raises(SystemExit, match="growth factor"):
        main([*args, "--cautious-growth", "0.5"])
    # Where a declaration gets a cautious start by default (the second moment at the table's
    # 5,000 cores), so does the simulation; --cautious-growth 1 turns it off, as declaring 1
    # does.
    both = ["simulate", "moment", "--years", "0.02", "--capacity", "5000", "--policies",
            "first_moment,second_moment"]
    assert main(both) == 0
    assert "cautious start λ ×2 (second_moment)" in capsys.readouterr().out.replace("\n", " ")
    assert main([*both, "--cautious-growth", "1"]) == 0
    assert "cautious start" not in capsys.readouterr().out.replace("\n", " ")


def test_serve_and_keys_name_the_database_the_same_way(env_database, tmp_path, monkeypatch,
                                                       capsys):
    """The line an operator compares when the server answers 401 to a fresh key."""
    import uvicorn

    import app.logs

    monkeypatch.setattr(uvicorn, "run", lambda *args, **kwargs: None)
    monkeypatch.setattr(app.logs, "configure_logging", lambda level: None)  # leave pytest's
    env_database(f"sqlite:///{tmp_path / 's.db'}")
    assert main(["serve", "--migrate"]) == 0
    served = [line for line in capsys.readouterr().err.splitlines() if "database" in line]
    assert main(["keys", "create", "--scope", "read"]) == 0
    assert served[0] in capsys.readouterr().err.splitlines()
    assert str(tmp_path / "s.db") in served[0]
