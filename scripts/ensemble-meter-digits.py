#!/usr/bin/python3
"""Joins digit networks trained by scripts/train-meter-digits.py with different --train-seed into one ONNX model whose
output is the log of their mean probabilities, so that meter_digits.cpp (a softmax over the output) reads the
members' mean softmax with one forward pass and no change to its API.

Commands (each training run about 7 minutes on one core, see train-meter-digits.py):

    nice -n 10 /usr/bin/python3 scripts/train-meter-digits.py \
        --data /tmp/meter-digits-scratch/meter-digits --out /tmp/meter-digits-a
    nice -n 10 /usr/bin/python3 scripts/train-meter-digits.py \
        --data /tmp/meter-digits-scratch/meter-digits --out /tmp/meter-digits-b --train-seed 20261202
    /usr/bin/python3 scripts/ensemble-meter-digits.py --data /tmp/meter-digits-scratch/meter-digits \
        --members /tmp/meter-digits-a /tmp/meter-digits-b --out /tmp/meter-digits-run3
    python3 scripts/embed-meter-digits.py --from /tmp/meter-digits-run3

The committed model (2026-12-02) was joined so from the single network committed before it (6515cb9, the default
seed, trained on another machine: its folder rebuilt from models/meter-digits.onnx and .metrics.json, the split's
validation.txt and the committed validation crops) and a network trained here with --train-seed 20261202; a rerun of
the first with the default seed here gives other weights with the same figures within 0.1 point.

Why: a network's confident mistakes on real counters come mostly from windows the camera spoils (perspective, blur,
JPEG, a drum cut off by the window's edge) rather than from clean crops, and two networks trained from other
initialisations, augmentations and orders make them on different windows. On the framed counters of
scripts/eval-meter.sh (`--cutout 4:1@70 --framing`, seeds 7, 11, 13, 17, 41, 43) the mean of two read 693 of 720
meters exact with 8 misreads, against 679 with 15 for the first alone (README, "Meter").

--out gets what embed-meter-digits.py --from takes: meter-digits.onnx, metrics.json (the ensemble's figures on the
validation split through OpenCV DNN, each member's own, the timing), and the first member's validation.txt,
validation-atlas.png and validation-labels.txt (every member must have been trained on the same split).
Needs python3-onnx, python3-opencv and what train-meter-digits.py imports (its figures and loading are reused).
"""

import argparse
import importlib.util
import json
import os
import shutil

import cv2
import numpy as np
import onnx
from onnx import TensorProto, compose, helper

HERE = os.path.dirname(os.path.abspath(__file__))


def load_training_module():
    spec = importlib.util.spec_from_file_location("train_meter_digits", os.path.join(HERE, "train-meter-digits.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def expose_members(model):
    """The members' own probabilities ("m0_p", "m1_p" ... in a joined graph) as further outputs "member0", "member1"
    ..., after "logits": meter_digits.cpp reads a drum's confidence as the least of the members' (two networks that
    read a drum differently are no surer than the less sure), from the same forward pass. The weights are untouched, so
    a model joined before these outputs existed (the committed one) gets them with `--expose-members MODEL`."""
    graph = model.graph
    outputs = graph.output[0].type.tensor_type.shape.dim[1].dim_value
    members = sorted((o for n in graph.node if n.op_type == "Softmax" for o in n.output if o.endswith("_p")),
                     key=lambda name: int(name[1:-2]))
    if not members or any(o.name.startswith("member") for o in graph.output):
        raise SystemExit("ensemble-meter-digits: not a joined model, or its members are exposed already")
    for k, name in enumerate(members):
        graph.node.append(helper.make_node("Identity", [name], [f"member{k}"]))
        graph.output.append(helper.make_tensor_value_info(f"member{k}", TensorProto.FLOAT, [1, outputs]))
    onnx.checker.check_model(model)
    return model


def join(paths):
    """One model: every member reads the input "grey"; the output "logits" is log(mean of the members' softmax), and
    each member's softmax is an output of its own (expose_members)."""
    nodes, initialisers, probabilities = [], [], []
    first = onnx.load(paths[0])
    input_name, output_name = first.graph.input[0].name, first.graph.output[0].name
    for k, path in enumerate(paths):
        member = compose.add_prefix(onnx.load(path), prefix=f"m{k}_")
        for node in member.graph.node:
            node.input[:] = [input_name if name == f"m{k}_{input_name}" else name for name in node.input]
        nodes += list(member.graph.node)
        initialisers += list(member.graph.initializer)
        nodes.append(helper.make_node("Softmax", [f"m{k}_{output_name}"], [f"m{k}_p"], axis=1))
        probabilities.append(f"m{k}_p")
    initialisers.append(helper.make_tensor("members_share", TensorProto.FLOAT, [], [1.0 / len(paths)]))
    nodes += [helper.make_node("Sum", probabilities, ["p_sum"]),
              helper.make_node("Mul", ["p_sum", "members_share"], ["p_mean"]),
              helper.make_node("Log", ["p_mean"], [output_name])]
    outputs = first.graph.output[0].type.tensor_type.shape.dim[1].dim_value  # 101: the positions and "no digit"
    graph = helper.make_graph(nodes, "meter_digits_ensemble", [first.graph.input[0]],
                              [helper.make_tensor_value_info(output_name, TensorProto.FLOAT, [1, outputs])],
                              initialisers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)], producer_name="lumascan")
    return expose_members(model)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", help="the extracted meter-digits folder (class folders)")
    parser.add_argument("--members", nargs="+", help="folders written by train-meter-digits.py")
    parser.add_argument("--out")
    parser.add_argument("--expose-members", metavar="MODEL",
                        help="only add the member outputs to a model joined without them, in place")
    args = parser.parse_args()
    if args.expose_members:
        onnx.save(expose_members(onnx.load(args.expose_members)), args.expose_members)
        return
    if not (args.data and args.members and args.out):
        parser.error("--data, --members and --out are required to join members")
    train = load_training_module()
    splits = {open(os.path.join(m, "validation.txt")).read() for m in args.members}
    if len(splits) != 1:
        raise SystemExit("ensemble-meter-digits: the members were trained on different validation splits")
    os.makedirs(args.out, exist_ok=True)
    onnx_path = os.path.join(args.out, "meter-digits.onnx")
    onnx.save(join([os.path.join(m, "meter-digits.onnx") for m in args.members]), onnx_path)

    validation = [line.rstrip("\n").split("\t") for line in open(os.path.join(args.members[0], "validation.txt"))]
    val_x = np.stack([train.load_grey(os.path.join(args.data, path)) for _, path in validation])
    val_y = np.array([int(label) for label, _ in validation], np.int64)
    cv2.setNumThreads(1)
    logits, per_digit_ms = train.opencv_logits(onnx_path, val_x)
    result = train.figures(logits[:, :train.CLASSES].argmax(1), val_y)
    for name in ("validation.txt", "validation-atlas.png", "validation-labels.txt"):
        shutil.copyfile(os.path.join(args.members[0], name), os.path.join(args.out, name))
    chosen = train.atlas_choice(val_y)
    atlas = train.figures(logits[chosen][:, :train.CLASSES].argmax(1), val_y[chosen])
    members = [json.load(open(os.path.join(m, "metrics.json"))) for m in args.members]
    metrics = {"validation": result, "cv2_dnn": result, "atlas": atlas,
               "members": [{"seed": m["seed"], "validation": m["validation"]} for m in members],
               "parameters": sum(m["parameters"] for m in members), "epochs": members[0]["epochs"],
               "width": members[0]["width"], "train_real": members[0]["train_real"],
               "train_rendered": members[0]["train_rendered"], "fonts": members[0]["fonts"],
               "cv2_ms_per_digit": per_digit_ms,
               "validation_taken_for_no_digit": float(np.mean(logits.argmax(1) == train.NO_DIGIT)),
               "no_digit_windows": members[0]["no_digit_windows"]}
    with open(os.path.join(args.out, "metrics.json"), "w") as f:
        json.dump(metrics, f, indent=1)
    print(f"{onnx_path}: {os.path.getsize(onnx_path)} bytes; validation {json.dumps(result)}; "
          f"atlas {json.dumps(atlas)}; {per_digit_ms:.3f} ms per digit (Python)")


if __name__ == "__main__":
    main()
