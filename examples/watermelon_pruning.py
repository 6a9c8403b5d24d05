"""The watermelon book's decision-tree chapter (Zhou Zhihua, *Machine Learning*, ch. 4).

Prints the root's information gains on all 17 melons, the ID3 tree, and on the book's
training/validation split the unpruned tree (42.9 %), pre-pruning (71.4 %) and
reduced-error post-pruning (71.4 %) step by step.  At the training root 色泽 and 脐部 tie
(gain 0.2755); ``tie_break=["脐部"]`` picks 脐部 as the book does.
"""

import numpy as np

from treeboost.datasets import load_watermelon
from treeboost.trees.classic import ID3Classifier
from treeboost.inspection import export_text
from treeboost.trees.pruning import pre_pruning, reduced_error_pruning
from treeboost.inspection import export_rules


def main():
    m = load_watermelon()
    full = ID3Classifier().fit(m.data, m.target)
    rep = full.split_report(0)
    print(f"Ent(D) = {rep.attrs['entropy']:.3f}")
    print(rep[["feature", "gain", "split_info", "gain_ratio"]].round(3).to_string(index=False))
    print("\n".join(export_rules(full)))

    tr, va = np.isin(m.ids, m.book_train_ids), np.isin(m.ids, m.book_validation_ids)
    Xt, yt, Xv, yv = m.data[tr], m.target[tr], m.data[va], m.target[va]
    clf = ID3Classifier(tie_break=["脐部"]).fit(Xt, yt)
    print(f"\nunpruned tree: validation accuracy {clf.score(Xv, yv):.1%}")
    for name, fn, kw in [
        ("pre-pruning", pre_pruning, {}),
        ("post-pruning", reduced_error_pruning, {}),
        ("post-pruning, book's tie rule", reduced_error_pruning, {"tie": "keep"}),
    ]:
        pruned, steps = fn(clf, Xv, yv, return_report=True, **kw)
        print(f"\n{name}: {pruned.score(Xv, yv):.1%}, {pruned.get_n_leaves()} leaves")
        for s in steps:
            print(
                f"  node {s['node']:>2} {s['feature']}: {s['accuracy_before']:.1%} -> "
                f"{s['accuracy_after']:.1%}  {s['decision']}"
            )
    print(
        export_text(pruned)
        if hasattr(pruned.tree_, "children_left")
        else "\n".join(export_rules(pruned))
    )


if __name__ == "__main__":
    main()
