import subprocess
import sys


def test_engine_imports_no_host_modules() -> None:
    code = (
        "import sys, engine, engine.hand, engine.autoplay, engine.solver\n"
        "bad = [m for m in ('discord', 'PIL', 'aiosqlite', 'asyncio') if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
