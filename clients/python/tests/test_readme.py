"""Every Python example of the README runs against the live service, as a script of its own. The OpenAI
loop talks to the scripted chat model the runner starts (OPENAI_BASE_URL)."""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def test_the_readme_has_examples():
    assert len(BLOCKS) >= 5


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_example_runs(index, tmp_path):
    code = BLOCKS[index]
    if "from openai import" in code and not os.environ.get("OPENAI_BASE_URL"):
        pytest.fail("the OpenAI example needs OPENAI_BASE_URL (a scripted model); the npm test runner sets it")
    script = tmp_path / f"example_{index}.py"
    script.write_text(code, encoding="utf-8")
    ran = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert ran.returncode == 0, f"example {index} failed:\n{code}\n--- stdout\n{ran.stdout}\n--- stderr\n{ran.stderr}"
