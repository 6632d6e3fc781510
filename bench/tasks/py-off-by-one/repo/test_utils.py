from utils import first_n, last_n


def test_last_n():
    assert last_n([1, 2, 3, 4], 2) == [3, 4]
    assert last_n([1, 2, 3], 0) == []


def test_first_n():
    assert first_n([1, 2, 3], 2) == [1, 2]


if __name__ == "__main__":
    test_last_n()
    test_first_n()
    print("ok")
