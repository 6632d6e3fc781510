text = open(".github/workflows/ci.yml").read()
assert 'python-version: "3.12"' in text or "python-version: 3.12" in text or "python-version: '3.12'" in text, text
assert "3.10" not in text
assert "actions/checkout@v4" in text and "python -m unittest" in text
print("ok")
