USERS = {1: "ada", 2: "linus"}


def get_usr(user_id):
    """Return the name of the user with this id, or None."""
    return USERS.get(user_id)
