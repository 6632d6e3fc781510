import users


def names(ids):
    return [users.get_usr(i) for i in ids]
