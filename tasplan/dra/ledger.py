"""The devices in use during a plan: those the input's claims hold, plus the allocations
the plan reserved (upstream's assume cache of ResourceClaims). Every change comes with an
undo token, handed back by the Statement on rollback."""

from __future__ import annotations

from dataclasses import dataclass

from tasplan.dra.allocator import ClaimResult, World
from tasplan.model.dra import Allocation, DeviceId


@dataclass(frozen=True, slots=True)
class Reservation:
    """What one assumed pod added: claim allocations (key -> result) and whether they can
    change other nodes' answers (network-attached devices or a shared claim)."""

    pod: int  # id() of the pod
    claims: tuple[tuple[str, ClaimResult], ...]
    wide: bool


class Scratch:
    """A copy of the devices in use that a what-if may take more from."""

    def __init__(self, world: World, in_use: set[DeviceId], counters: dict[tuple, int]):
        self.world = world
        self.in_use = in_use
        self.counters = counters

    def take(self, results: list[ClaimResult]) -> None:
        for result in results:
            for r in result.results:
                if not r.admin_access:
                    self.in_use.add(r.id)
                    for key, value in self.world.counter_use(r.id):
                        self.counters[key] = self.counters.get(key, 0) + value


class DeviceLedger:
    def __init__(self, world: World) -> None:
        self.world = world
        self.in_use: set[DeviceId] = set()
        self.counters: dict[tuple, int] = {}
        for claim in world.inputs.claims.values():
            if claim.allocation is not None:
                for r in claim.allocation.results:
                    if not r.admin_access:
                        self._hold(r.id, 1)
        self.pending: dict[str, Allocation] = {}
        self.log: list[tuple[str, ClaimResult]] = []  # reservations in order, for reports
        self.reserved: dict[int, Reservation] = {}

    def _hold(self, device: DeviceId, sign: int) -> None:
        if sign > 0:
            self.in_use.add(device)
        else:
            self.in_use.discard(device)
        if self.world.counters:
            for key, value in self.world.counter_use(device):
                self.counters[key] = self.counters.get(key, 0) + sign * value

    def hold(self, devices: list[DeviceId], sign: int) -> None:
        """Take (+1) or give back (-1) devices outside the plan's reservations (what-ifs
        that evict the pods holding them)."""
        for device in devices:
            self._hold(device, sign)

    def scratch(self) -> Scratch:
        return Scratch(self.world, set(self.in_use), dict(self.counters))

    def add(self, reservation: Reservation) -> Reservation:
        for key, result in reservation.claims:
            self.pending[key] = Allocation(result.results, result.reach)
            self.log.append((key, result))
            for r in result.results:
                if not r.admin_access:
                    self._hold(r.id, 1)
        self.reserved[reservation.pod] = reservation
        return reservation

    def remove(self, reservation: Reservation) -> None:
        for key, result in reversed(reservation.claims):
            del self.pending[key]
            popped = self.log.pop()
            if popped[0] != key:
                raise RuntimeError(f"DRA ledger undo out of order: {popped[0]} vs {key}")
            for r in result.results:
                if not r.admin_access:
                    self._hold(r.id, -1)
        del self.reserved[reservation.pod]
