import pathlib
import subprocess
import sys

for path in ["users.py", "api.py", "report.py"]:
    text = pathlib.Path(path).read_text()
    assert "get_usr" not in text, path
from api import greeting
from report import names
from users import get_user

assert get_user(1) == "ada"
assert greeting(2) == "Hello, linus"
assert greeting(9) == "Hello, stranger"
assert names([1, 2]) == ["ada", "linus"]
print("ok")
