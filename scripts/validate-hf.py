#!/usr/bin/env python3
"""Renders `oc export-ft --format hf` lines (JSONL on stdin) with a model's
chat template, as `transformers`' `apply_chat_template(messages,
tools=tools)` and TRL's SFT trainer do, and checks what came out: every
message's text is in it, every tool call is rendered with its arguments as
a JSON object (not a string in a string), and the reasoning is not in the
answer. Prints how many lines passed.

    python3 -m venv .venv && .venv/bin/pip install jinja2
    oc export-ft --format hf | .venv/bin/python scripts/validate-hf.py \\
        fixtures/finetune/qwen2.5-chat-template.jinja

Exits 1 at the first line that fails, naming it and why; 2 when jinja2 is
missing.
"""

import json
import sys

try:
    from jinja2.exceptions import TemplateError
    from jinja2.sandbox import ImmutableSandboxedEnvironment
except ImportError:
    print("the `jinja2` package is not installed (pip install jinja2)", file=sys.stderr)
    sys.exit(2)


def environment():
    """The Jinja environment `transformers` renders chat templates in."""

    def raise_exception(message):
        raise TemplateError(message)

    def tojson(value, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(
            value, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys
        )

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    return env


def check(line, template):
    rendered = template.render(
        messages=line["messages"], tools=line.get("tools") or None, add_generation_prompt=False
    )
    for message in line["messages"]:
        content = message.get("content") or ""
        if content and content not in rendered:
            raise ValueError(f"a {message['role']} message's text is not in the rendered chat")
        reasoning = message.get("reasoning_content")
        if reasoning and reasoning in content:
            raise ValueError("the reasoning is inside the answer")
        for call in message.get("tool_calls") or []:
            arguments = call["function"]["arguments"]
            if not isinstance(arguments, dict):
                raise ValueError("tool-call arguments are not an object")
            if json.dumps(arguments, ensure_ascii=False) not in rendered:
                raise ValueError(f"the call to {call['function']['name']} is not rendered as JSON")
    return rendered


def main():
    if len(sys.argv) != 2:
        print("usage: validate-hf.py CHAT_TEMPLATE.jinja < export.jsonl", file=sys.stderr)
        sys.exit(2)
    with open(sys.argv[1], encoding="utf-8") as f:
        template = environment().from_string(f.read())
    count = 0
    for number, text in enumerate(sys.stdin, start=1):
        if not text.strip():
            continue
        try:
            check(json.loads(text), template)
        except Exception as error:  # noqa: BLE001 - any failure is reported
            print(f"line {number}: {error}", file=sys.stderr)
            sys.exit(1)
        count += 1
    print(f"{count} lines render with the chat template")


if __name__ == "__main__":
    main()
