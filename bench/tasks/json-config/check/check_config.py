import json

c = json.load(open("config.json"))
assert c["port"] == 8080, c
assert c["debug"] is True, c
assert c["name"] == "shop"
assert c["database"] == {"host": "localhost", "pool": 5}
assert c["features"] == ["search", "cart"]
print("ok")
