"""Every write to accounts."""

from __future__ import annotations

from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, transaction
from rest_framework.authtoken.models import Token

from config.errors import Invalid

from . import tokens
from .models import User


def user_register(*, username: str, password: str, email: str = "") -> tuple[User, str]:
    """Create a player and their API token. A taken username or a weak password is 400
    `invalid` with the field named."""
    if User.objects.filter(username__iexact=username).exists():
        raise Invalid("that username is taken", {"fields": {"username": ["already taken"]}})
    user = User(username=username, email=email)
    try:
        validate_password(password, user)
    except DjangoValidationError as exc:
        raise Invalid("the password is too weak", {"fields": {"password": list(exc.messages)}}) from exc
    user.set_password(password)
    try:
        with transaction.atomic():
            user.save()
            token = Token.objects.create(user=user)
    except IntegrityError as exc:
        raise Invalid("that username is taken", {"fields": {"username": ["already taken"]}}) from exc
    return user, token.key


def token_regenerate(*, user: User) -> str:
    """Invalidate the user's token and issue a new one (operators, from the admin)."""
    with transaction.atomic():
        Token.objects.filter(user=user).delete()
        return Token.objects.create(user=user).key


def users_deactivate(queryset) -> int:
    """Deactivate users in bulk (the admin's action): every API call of theirs then gets 401,
    polls included (their cached tokens are dropped on commit)."""
    with transaction.atomic():
        ids = list(queryset.values_list("pk", flat=True))
        count = User.objects.filter(pk__in=ids).update(is_active=False)
        transaction.on_commit(lambda: tokens.forget_users(ids))
    return count


def token_for(*, user: User) -> str:
    token, _ = Token.objects.get_or_create(user=user)
    return token.key


def bot_user_get_or_create(*, level: str) -> User:
    """The shared bot account of a level; bots need no password and no token. The
    colon keeps the name out of reach of registration (usernames allow letters, digits and @.+-_)."""
    user, created = User.objects.get_or_create(
        username=f"bot:{level}", defaults={"is_bot": True, "bot_level": level}
    )
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    return user
