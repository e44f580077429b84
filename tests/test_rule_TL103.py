"""TL103 beyond the fixtures: a CUDA tensor type behind an alias, and what the message says about the array's size.

Each silence test pairs a snippet with its reported twin, so it fails if the
reason for silence stops being recognised *or* if the snippet would have been
silent anyway.
"""

from __future__ import annotations

import ast
import textwrap
from typing import List

from trainlint.diagnostics import Diagnostic
from trainlint.engine import RuleSettings, fix_source, lint_source

SETTINGS = RuleSettings(codes=frozenset({"TL103"}))

# yoshall/UrbanFM's utils/data_process.py: a tensor type chosen by CUDA availability, fed the whole arrays.
ALIASED_TENSOR_TYPE = """
import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset

def get_dataloader(path, batch_size):
    cuda = True if torch.cuda.is_available() else False
    Tensor = {tensor_type}
    X = Tensor(np.expand_dims(np.load(path + "/X.npy"), 1)) / 100.0
    Y = Tensor(np.load(path + "/Y.npy"))
    return DataLoader(TensorDataset(X, Y), batch_size=batch_size, shuffle=True)
"""


def findings(text: str) -> List[Diagnostic]:
    result = lint_source(textwrap.dedent(text).lstrip("\n"), "example.py", SETTINGS)
    assert not result.errors, result.errors
    return list(result.diagnostics)


def test_a_cuda_tensor_type_behind_a_conditional_alias_is_a_move() -> None:
    found = findings(ALIASED_TENSOR_TYPE.format(tensor_type="torch.cuda.FloatTensor if cuda else torch.FloatTensor"))
    assert [(d.location.row, d.code) for d in found] == [(8, "TL103"), (9, "TL103")]
    assert "the whole data set in `/X.npy` (read by `np.load(path + \"/X.npy\")`)" in found[0].message


def test_the_aliased_move_gets_no_fix_because_the_batch_device_is_conditional() -> None:
    """The loop that would move each batch would have to choose CUDA or the CPU as the alias does: not offered."""
    source = textwrap.dedent(ALIASED_TENSOR_TYPE.format(tensor_type="torch.cuda.FloatTensor if cuda else torch.FloatTensor")).lstrip("\n")
    result = fix_source(source, "example.py", SETTINGS, unsafe_fixes=True)
    assert not result.errors
    assert result.text == source


def test_a_cpu_tensor_type_alias_is_not_a_move() -> None:
    assert findings(ALIASED_TENSOR_TYPE.format(tensor_type="torch.FloatTensor")) == []


CPU_OR_CUDA_LOADER = """
import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset

BATCH = 64
device = torch.device("cuda")
X = torch.from_numpy(np.load("train_images.npy"){reshape}).float().to(device)
loader = DataLoader(TensorDataset(X), batch_size=BATCH)
for (xb,) in loader:
    pass
"""


def test_the_message_gives_the_whole_arrays_size_against_one_batch_when_the_code_shows_both() -> None:
    (finding,) = findings(CPU_OR_CUDA_LOADER.format(reshape=".reshape(16283, 3, 224, 224)"))
    assert "in `train_images.npy`" in finding.message
    assert "(16283x3x224x224 float32 values, 9.1 GiB, 254 times one batch of 64)" in finding.message


def test_the_message_gives_one_batchs_size_when_the_row_count_is_left_to_the_file() -> None:
    (finding,) = findings(CPU_OR_CUDA_LOADER.format(reshape=".reshape(-1, 3, 224, 224)"))
    assert "(one batch is 64x3x224x224 float32 values, 36.8 MiB; the whole array is every row of the file)" in finding.message


def test_the_message_claims_no_size_the_code_does_not_show() -> None:
    (finding,) = findings(CPU_OR_CUDA_LOADER.format(reshape=""))
    assert "values" not in finding.message and "MiB" not in finding.message


def test_a_slice_loop_gives_the_batch_rows_and_a_dtype_keyword_gives_the_element_size() -> None:
    (finding,) = findings(
        """
        import numpy as np
        import torch

        device = torch.device("cuda")
        X = torch.tensor(np.load("x.npy").reshape(-1, 1, 28, 28), dtype=torch.float16).to(device)
        for i in range(0, len(X), 128):
            xb = X[i:i + 128]
        """
    )
    assert "(one batch is 128x1x28x28 float16 values, 196.0 KiB;" in finding.message


KERAS_WITHOUT_TF = """
import numpy as np
from tensorflow import keras

x = np.load("images.npy")
y = np.load("labels.npy")
model = keras.Sequential([keras.layers.Dense(10)])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
model.fit(x, y, batch_size=64, epochs=2)
"""


def test_the_keras_fit_fix_imports_tensorflow_where_the_module_binds_no_name_to_it() -> None:
    """udacity's transfer-learning notebook (precision round 6): the fix wrote `tf.device(...)` and `tf.data` into a
    module that never imports tensorflow, so the fixed cell raised NameError."""
    assert [d.code for d in findings(KERAS_WITHOUT_TF)] == ["TL103"]
    fixed = fix_source(KERAS_WITHOUT_TF, "t.py", SETTINGS, unsafe_fixes=True).text
    assert "import tensorflow\n" in fixed and "tensorflow.data.Dataset.from_tensor_slices((x, y))" in fixed
    compile(fixed, "t.py", "exec")
    names = {node.id for node in ast.walk(ast.parse(fixed)) if isinstance(node, ast.Name)}
    assert "tf" not in names  # no name the module leaves unbound
    with_tf = "import tensorflow as tf\n" + KERAS_WITHOUT_TF
    assert "tf.data.Dataset.from_tensor_slices((x, y))" in fix_source(with_tf, "t.py", SETTINGS, unsafe_fixes=True).text
