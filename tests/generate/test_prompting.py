"""The regeneration prompt: what context it carries, what it leaves out, its hash."""

from __future__ import annotations

from codequorum.core.parsing import function_by_name
from codequorum.generate.prompting import build_messages, display_name, prompt_hash

SOURCE = '''"""A tiny stack module."""

import os
from typing import Generic, TypeVar

T = TypeVar("T")

FAR_AWAY_CONSTANT = 1
{filler}

class Stack(Generic[T]):
    """A bounded LIFO stack."""

    def __init__(self, limit: int) -> None:
        self.items: list[T] = []
        self.limit = limit

    def push(self, item: T) -> None:
        """Put item on top; raise OverflowError when full."""
        if len(self.items) >= self.limit:
            raise OverflowError("UNIQUE_BODY_MARKER")
        self.items.append(item)

    def pop(self) -> T:
        return self.items.pop()
'''.replace("{filler}", "\n".join(f"V{i} = {i}" for i in range(40)))


def test_method_prompt_carries_context_but_not_the_body() -> None:
    info = function_by_name(SOURCE, "python", "Stack.push")
    assert info is not None
    messages = build_messages(SOURCE, "python", info, context_lines=8, path="pkg/stack.py")
    assert [m["role"] for m in messages] == ["system", "user"]
    system, user = messages[0]["content"], messages[1]["content"]
    assert "Python" in system and "```python" in system
    assert "Write the method `push` of class `Stack` in `pkg/stack.py`" in user
    assert "def push(self, item: T) -> None" in user
    assert "Put item on top; raise OverflowError when full." in user
    assert "import os\nfrom typing import Generic, TypeVar" in user
    assert "class Stack(Generic[T]):" in user and "A bounded LIFO stack." in user
    assert "def pop(self) -> T:" in user and "self.limit = limit" in user
    assert "# ... `push` goes here ..." in user
    assert "UNIQUE_BODY_MARKER" not in user  # the current body is never sent
    assert "FAR_AWAY_CONSTANT" not in user and "V10 = 10" not in user  # bounded window


def test_top_level_function_prompt() -> None:
    source = "import math\n\n\ndef area(r: float) -> float:\n    return math.pi * r * r\n"
    info = function_by_name(source, "python", "area")
    assert info is not None
    user = build_messages(source, "python", info)[1]["content"]
    assert "Write the function `area` (qualified name `area`)." in user
    assert "It belongs to this class" not in user
    assert "math.pi * r * r" not in user


def test_prompt_hash_is_stable_and_sensitive() -> None:
    info = function_by_name(SOURCE, "python", "Stack.push")
    assert info is not None
    a = build_messages(SOURCE, "python", info)
    b = build_messages(SOURCE, "python", info)
    assert prompt_hash(a) == prompt_hash(b) and len(prompt_hash(a)) == 16
    other = function_by_name(SOURCE, "python", "Stack.pop")
    assert other is not None
    assert prompt_hash(build_messages(SOURCE, "python", other)) != prompt_hash(a)


def test_javascript_prompt_and_display_names() -> None:
    source = "import fs from 'fs';\n\nfunction add(a, b) {\n  return a + b;\n}\n"
    info = function_by_name(source, "javascript", "add")
    assert info is not None
    messages = build_messages(source, "js", info)
    assert "JavaScript" in messages[0]["content"] and "```javascript" in messages[1]["content"]
    assert "import fs from 'fs';" in messages[1]["content"]
    assert display_name("cpp") == "C++" and display_name("py") == "Python"


def test_small_file_is_not_repeated() -> None:
    source = (
        "from typing import Generic, TypeVar\n\nT = TypeVar('T')\n\n\nclass Stack(Generic[T]):\n"
        "    def push(self, item: T) -> None:\n        self.items.append(item)\n\n"
        "    def pop(self) -> T:\n        return self.items.pop()\n"
    )
    info = function_by_name(source, "python", "Stack.push")
    assert info is not None
    user = build_messages(source, "python", info)[1]["content"]
    assert user.count("from typing import Generic, TypeVar") == 1
    assert user.count("class Stack(Generic[T]):") == 1
    assert "self.items.append" not in user
    assert "class Stack(Generic[T]):\n    # ... `push` goes here ...\n\n    def pop" in user
