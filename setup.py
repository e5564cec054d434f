"""Build script for the compiled part of the engine (metadata lives in pyproject.toml).

``engine._fastai`` (the AI's rollouts in C) is optional: when it cannot be built the install
still succeeds and the engine runs the same rollouts in Python (``engine.ai`` chooses).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "engine._fastai",
            sources=["engine/_fastai.c"],
            # the same floating-point results as the Python rollouts: no fused multiply-add
            extra_compile_args=["-O2", "-ffp-contract=off", "-std=c99"],
            optional=True,
        )
    ],
)
