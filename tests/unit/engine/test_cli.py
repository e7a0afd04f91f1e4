"""The command line: python -m games.engine deadwood | knock | play | replay."""

import json
import subprocess
import sys

import pytest

from games.engine.__main__ import main


def run(args, stdin="", capsys=None, monkeypatch=None):
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(args)
    out, err = capsys.readouterr()
    return code, [json.loads(line) for line in out.splitlines() if line.startswith("{")], err


def test_deadwood_answers_each_line_and_reports_bad_lines(capsys, monkeypatch):
    lines = "\n".join(
        [
            "AS 2S 3S 4H 5H 6H KD KC KS 9C",
            "3C 3D 6D 4C 4H 5C 5H 6H 6C AH 5D",
            "ZZ 2S 3S",
            "AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS",
            "AS AS 2C 3C 4C 5C 6C 7C 8C 9C",
            "AS 2S",
        ]
    )
    code, answers, err = run(["deadwood"], lines, capsys, monkeypatch)
    assert code == 1
    assert answers[0] == {
        "cards": ["AS", "2S", "3S", "4H", "5H", "6H", "KD", "KC", "KS", "9C"],
        "melds": [["KC", "KD", "KS"], ["4H", "5H", "6H"], ["AS", "2S", "3S"]],
        "deadwood": ["9C"],
        "points": 9,
    }
    assert answers[1]["discard"] == "6D" and answers[1]["points"] == 9
    assert answers[2] == {
        "error": "unknown card 'ZZ': expected rank then suit, e.g. 'TS'",
        "line": 3,
    }
    assert answers[3]["discard"] is None and answers[3]["points"] == 0
    assert answers[4]["error"] == "duplicate card AS"
    assert answers[5]["error"] == "a hand has 10 or 11 cards, not 2"
    assert "line 3: unknown card 'ZZ'" in err


KNOCK = {
    "knocker_melds": [["4H", "5H", "6H"], ["KC", "KD", "KS"]],
    "knocker_deadwood": ["AC", "2D", "3C", "AD"],
    "defender": ["7H", "8H", "3H", "KH", "2S", "9D", "TD", "JD", "QD", "5S"],
    "rules": "standard",
}


def test_knock_scores_with_declared_melds_and_optimal_lay_offs(capsys, monkeypatch):
    gin = dict(
        KNOCK,
        knocker_melds=[*KNOCK["knocker_melds"], ["AC", "2C", "3C", "4C"]],
        knocker_deadwood=[],
    )
    bad = dict(KNOCK, knocker_melds=[["4H", "5H"]])
    over = dict(KNOCK, knocker_deadwood=["AC", "2D", "3C", "9S"])
    text = "\n".join(json.dumps(x) for x in (KNOCK, gin, bad, over)) + "\nnot json\n"
    code, answers, _ = run(["knock"], text, capsys, monkeypatch)
    assert code == 1
    assert answers[0] == {
        "kind": "undercut",
        "knocker_deadwood": 7,
        "defender_deadwood": 7,
        "defender_melds": [["9D", "TD", "JD", "QD"]],
        "layoffs": [
            {"card": "3H", "onto": ["4H", "5H", "6H"]},
            {"card": "7H", "onto": ["4H", "5H", "6H"]},
            {"card": "8H", "onto": ["4H", "5H", "6H"]},
            {"card": "KH", "onto": ["KC", "KD", "KS"]},
        ],
        "winner": "defender",
        "score": 25,
    }
    assert answers[1]["kind"] == "gin" and answers[1]["layoffs"] == [] and answers[1]["score"] == 60
    assert answers[2]["error"] == "not a meld: 4H 5H"
    assert "over the knock limit" in answers[3]["error"]
    assert answers[4]["error"].startswith("not JSON")


def test_play_and_replay_verify_a_match_from_its_log(capsys, monkeypatch):
    code, answers, _ = run(
        ["play", "--mode", "game", "--seed", "5", "--rules", '{"target": 60}', "--log"],
        "",
        capsys,
        monkeypatch,
    )
    assert code == 0
    log = answers[0]["log"]
    code, lines, _ = run(["replay"], json.dumps(log), capsys, monkeypatch)
    assert code == 0 and lines[-1]["verified"] is True
    assert all(line["matches_record"] for line in lines[:-1])
    tampered = json.loads(json.dumps(log))
    tampered["games"][0]["deals"][0]["outcome"] = {"termination": "gin", "points": 999}
    code, lines, err = run(["replay"], json.dumps(tampered), capsys, monkeypatch)
    assert code == 1 and lines[-1]["verified"] is False and "differs" in err


def test_replay_verifies_a_table_match_from_its_entered_hands(capsys, monkeypatch):
    from games.engine.match import Match
    from games.engine.rules import RuleSet
    from games.engine.table import EnteredHand, HandKind

    match = Match(7, RuleSet(target=100, best_of=1))
    while not match.is_over:
        match.enter(EnteredHand(HandKind.GIN, 0, (None, 30)))
    log = match.log_json()
    code, lines, _ = run(["replay"], json.dumps(log), capsys, monkeypatch)
    assert code == 0 and lines[-1]["verified"] is True
    assert lines[0]["entered"] == log["games"][0]["deals"][0]["hand"]
    assert "hands" not in lines[0], "a hand played with real cards was not dealt from a seed"


def test_unknown_bot_is_a_one_line_error_and_a_non_zero_exit():
    proc = subprocess.run(
        [sys.executable, "-m", "games.engine", "play", "--a", "nobody"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip().startswith("error: unknown bot 'nobody'")
    assert len(proc.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("rules", ["nonsense", '{"target": -5}'])
def test_bad_rules_are_refused(rules, capsys, monkeypatch):
    code, _, err = run(["play", "--rules", rules], "", capsys, monkeypatch)
    assert code == 2 and err.startswith("error: ")
