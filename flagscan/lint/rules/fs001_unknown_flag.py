"""Unknown flag: the option is not registered by `sglang serve` at the pinned revision.

## What it does
Reports an option that SGLang's parser does not know, with the closest known option
as a did-you-mean suggestion.

## Why is this bad?
SGLang's argparse parser exits with "unrecognized arguments" before the server
starts; in a unit with `Restart=on-failure` this becomes a restart loop.

## Example
```
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp-sise 2
```

## Use instead
```
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp-size 2
```
"""

from flagscan.diagnostics import Severity
from flagscan.lint.model import Example

CODE = "FS001"
NAME = "unknown-flag"
SEVERITY = Severity.ERROR
MESSAGE = "unknown flag {flag}"

VALID = (Example("--model-path m --tp-size 2"),)
INVALID = (Example("--model-path m --tp-sise 2", expect=("FS001",)),)


def check(ctx):
    # flagscan.inputs words it (with the suggestion); the rule owns its documentation.
    return ctx.input_diagnostics(CODE)
