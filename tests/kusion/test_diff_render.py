"""Comparison, secret masking and the text/JSON renderings."""

from __future__ import annotations

import json

from kclpy.kusion.diff import (
    ADDED,
    CHANGED,
    MASK,
    REMOVED,
    differences,
    mask_secrets,
    remove_fields,
)
from kclpy.kusion.engine import StepOutcome
from kclpy.kusion.model import Action, ChangeOrder, ChangeStep
from kclpy.kusion.render import order_detail, order_json, order_table, progress_line


def test_differences_report_paths_and_kinds() -> None:
    before = {"a": 1, "b": {"c": [1, 2]}, "gone": True}
    after = {"a": 2, "b": {"c": [1, 3]}, "new": "x"}
    found = {(item.dotted(), item.kind) for item in differences(before, after)}
    assert found == {("a", CHANGED), ("b.c.1", CHANGED), ("gone", REMOVED), ("new", ADDED)}
    assert differences({"x": 1}, {"x": 1.0}) != []  # int vs float differs in JSON terms
    assert differences({"l": [1]}, {"l": [1, 2]})[0].path == ("l",)


def test_remove_fields_ignores_paths_inside_lists() -> None:
    value = {"metadata": {"labels": {"a": "1"}, "name": "x"}, "items": [{"t": 1, "k": 2}]}
    assert remove_fields(value, ["metadata.labels", "items.t"]) == {
        "metadata": {"name": "x"},
        "items": [{"k": 2}],
    }


def test_secrets_are_masked_by_kind_key_and_sensitive_paths() -> None:
    secret = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "db"},
        "data": {"password": "aHVudGVyMg=="},
        "stringData": {"user": "admin"},
    }
    assert mask_secrets(secret)["data"] == {"password": MASK}
    assert mask_secrets(secret)["stringData"] == {"user": MASK}
    config = {
        "db": {"password": "hunter2", "passwordSecretName": "db", "host": "h"},
        "api_token": "t0k",
        "env": [{"name": "PRIVATE_KEY", "privateKey": "k"}],
        "automountServiceAccountToken": False,
    }
    masked = mask_secrets(config)
    assert masked["db"] == {"password": MASK, "passwordSecretName": "db", "host": "h"}
    assert masked["api_token"] == MASK and masked["env"][0]["privateKey"] == MASK
    assert masked["automountServiceAccountToken"] is False
    terraform = {"result": "s3cr3t", "length": 16, "keepers": {"a": "b"}}
    assert mask_secrets(terraform, {"result": True}) == {
        "result": MASK,
        "length": 16,
        "keepers": {"a": "b"},
    }


def test_preview_output_never_contains_a_secret_value() -> None:
    order = ChangeOrder()
    before = {"kind": "Secret", "apiVersion": "v1", "data": {"token": "old-value"}}
    after = {"kind": "Secret", "apiVersion": "v1", "data": {"token": "new-value"}}
    order.add(ChangeStep("v1:Secret:demo:db", Action.UPDATE, before, after))
    order.add(ChangeStep("tf", Action.CREATE, None, {"password": "p4ss", "size": 3}))
    text = order_json(order) + order_detail(order) + order_table(order)
    for value in ("old-value", "new-value", "p4ss"):
        assert value not in text
    assert f"~ data.token: {json.dumps(MASK)} -> {json.dumps(MASK)}" in order_detail(order)
    assert "Plan: 1 to create, 1 to update, 0 to delete, 0 unchanged." in order_table(order)


def test_progress_lines() -> None:
    outcome = StepOutcome("a", Action.CREATE, "failed", 1.25, "boom", 3, 12)
    assert progress_line(outcome) == "[ 3/12] Create    a  failed in 1.2s: boom"
