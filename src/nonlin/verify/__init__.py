"""Verification: sound linear relaxations of every catalog entry, exact ranges, and bound propagation."""

from nonlin.verify.relax import GatedRelaxation, Relaxation, interval, relax

__all__ = ["GatedRelaxation", "Relaxation", "interval", "relax"]
