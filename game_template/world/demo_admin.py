"""
The demo's admin account, for `make demo` and `make demo-admin` (tools/demo.py).

Evennia makes its superuser from EVENNIA_SUPERUSER_USERNAME/PASSWORD only on a brand-new
database. Over a demo/ kept from an earlier run those variables would be ignored, and the
banner would name an admin who does not exist; so tools/demo.py runs `main()` here with
`evennia shell` (server stopped) to make sure the named account exists, is a superuser and
staff (for `@memory` and the web inspector), and has the given password. It prints one line,
`OMNIIRA_ADMIN_RESULT {json}`, that tools/demo.py reads to tell the truth in its banner.
"""

import json
import os

RESULT_MARK = "OMNIIRA_ADMIN_RESULT "


def ensure_admin(username: str, password: str) -> dict:
    """
    Create `username` as a superuser with `password`, or bring an existing account there (set
    the password, make it superuser and staff with Developer permission). Returns what was
    done: created, password_reset, promoted, errors (why it could not be made) and superusers
    (every superuser's name afterwards).
    """
    from django.conf import settings
    from evennia.accounts.models import AccountDB
    from evennia.utils.utils import class_from_module

    result = {
        "username": username,
        "created": False,
        "password_reset": False,
        "promoted": False,
        "errors": [],
    }
    account = AccountDB.objects.filter(username__iexact=username).first()
    if account is None:
        account_class = class_from_module(settings.BASE_ACCOUNT_TYPECLASS)
        account, errors = account_class.create(
            username=username, password=password, permissions=["Developer"]
        )
        if account is None:
            result["errors"] = [str(error) for error in errors] or ["unknown error"]
        else:
            result["created"] = True
    elif not account.check_password(password):
        account.set_password(password)
        account.save()
        result["password_reset"] = True
    if account is not None:
        result["username"] = account.username
        if not (account.is_superuser and account.is_staff):
            result["promoted"] = not result["created"]
            account.is_superuser = account.is_staff = True
            account.save()
        if not account.permissions.check("Developer"):
            account.permissions.add("Developer")
    result["superusers"] = sorted(
        AccountDB.objects.filter(is_superuser=True).values_list("username", flat=True)
    )
    return result


def main() -> None:
    """`evennia shell -c` entry: the account and password come from the environment."""
    result = ensure_admin(
        os.environ["OMNIIRA_DEMO_ADMIN_USER"], os.environ["OMNIIRA_DEMO_ADMIN_PASSWORD"]
    )
    print(RESULT_MARK + json.dumps(result), flush=True)
