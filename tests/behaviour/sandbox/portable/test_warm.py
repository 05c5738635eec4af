"""Guests started ahead: a pool by key, each guest for one version only."""

from __future__ import annotations

import threading

from codequorum.behaviour.sandbox.portable import warm


class Inbox:
    """A stdin that records being ended (what ``Warm.discard`` does to it)."""

    def __init__(self) -> None:
        self.dropped = threading.Event()

    def drop(self) -> None:
        self.dropped.set()


def _pool(waiting: int = 2) -> tuple[warm.Pool, list[warm.Warm]]:
    made: list[warm.Warm] = []

    def wait_for_stdin(guest: warm.Warm) -> None:
        guest.inbox.dropped.wait()

    def make(key: tuple[object, ...]) -> warm.Warm:
        guest = warm.Warm(wait_for_stdin, Inbox(), None)
        made.append(guest)
        return guest

    return warm.Pool(make, waiting), made


def test_a_guest_is_taken_once_and_the_pool_starts_the_next_ones() -> None:
    pool, made = _pool()
    first = pool.take(("v", 1))
    assert len(made) == 3  # this one, then two waiting
    second = pool.take(("v", 1))
    assert second is made[1] and second is not first
    third = pool.take(("v", 1))
    assert third is made[2]
    assert len({id(g) for g in (first, second, third)}) == 3
    pool.close()
    assert all(g.halt and g.inbox.dropped.is_set() for g in made[3:])


def test_a_guest_that_ended_while_it_waited_is_not_handed_out() -> None:
    pool, made = _pool(waiting=1)
    pool.take(("v", 1))
    waiting = made[1]
    waiting.discard()
    waiting.ended.wait(5)
    assert pool.take(("v", 1)) is not waiting


def test_other_limits_get_guests_of_their_own_and_old_keys_are_discarded() -> None:
    pool, made = _pool(waiting=1)
    for fuel in range(warm.KEYS + 1):
        guest = pool.take(("v", fuel))
        assert guest not in made[:-2] or guest is made[-2]
    first_keys_waiting = made[1]  # waited for key ("v", 0), dropped for the newest key
    assert first_keys_waiting.halt and first_keys_waiting.inbox.dropped.is_set()
    pool.close()


def test_a_key_that_will_not_come_again_starts_nothing_ahead_and_keeps_the_others() -> None:
    """A version's fuel left after an overrun is its own: a guest for it is started alone,
    and the guests waiting for the keys every version takes stay."""
    pool, made = _pool(waiting=1)
    for fuel in range(warm.KEYS):
        pool.take(("v", fuel))
    assert len(made) == 2 * warm.KEYS
    once = pool.take(("v", 99), ahead=False)
    assert made[-1] is once and len(made) == 2 * warm.KEYS + 1
    assert not any(g.halt for g in made[:-1])
    assert sorted(pool._guests) == [("v", fuel) for fuel in range(warm.KEYS)]
    waiting = made[1]  # for ("v", 0): handed over to a take that will not come again
    assert pool.take(("v", 0), ahead=False) is waiting
    assert len(made) == 2 * warm.KEYS + 1
    pool.close()


def test_output_before_a_version_takes_the_guest_reaches_that_version() -> None:
    def speak(guest: warm.Warm) -> None:
        guest.stdout(b"early")

    guest = warm.Warm(speak, Inbox(), None)
    guest.ended.wait(5)
    seen: list[bytes] = []
    guest.attach(seen.append, seen.append)
    guest.stdout(b"late")
    assert seen == [b"early", b"late"]
