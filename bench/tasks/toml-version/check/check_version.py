import tomllib

data = tomllib.load(open("pyproject.toml", "rb"))
assert data["project"]["version"] == "1.2.0", data
assert data["project"]["dependencies"] == ["requests>=2"]
assert data["tool"]["ruff"]["line-length"] == 100
print("ok")
