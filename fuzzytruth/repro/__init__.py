"""Reproductions of Santini's worked examples (§4 and §5), printed side by side with the paper."""

from fuzzytruth.repro import santini_section4, santini_section5

SECTIONS = {"section4": santini_section4.main, "section5": santini_section5.main}

__all__ = ["SECTIONS", "santini_section4", "santini_section5"]
