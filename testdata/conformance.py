"""jupyter_kernel_test's KernelTests against the copulang kernel, and the
same checks against ipykernel for comparison.

usage: conformance.py DATA_DIR

DATA_DIR is a writable directory for a small CSV file. Jupyter must find the
copulang kernelspec (TestKernelConformance installs one and sets
JUPYTER_PATH). The script runs both classes and prints one JSON object:
{"copulang": {test: outcome}, "ipykernel": {test: outcome}} where outcome is
"ok", "skipped: ...", "fail: ..." or "error: ...". A test fails if any of its
subtests fails, and counts as skipped if any of them is skipped.
The Go test requires copulang to pass every test that ipykernel passes, and
to skip none.
"""
import json
import os
import sys
import unittest

import jupyter_kernel_test as jkt

DATA = sys.argv[1] if __name__ == "__main__" else "."
CONSTANT_CSV = os.path.join(DATA, "constant.csv")


class CopulangKernelTests(jkt.KernelTests):
    kernel_name = "copulang"
    language_name = "copulang"
    file_extension = ".cop"

    code_hello_world = 'print "hello, world"'
    # A column with one level cannot inform the copula: load warns on stderr.
    code_stderr = 'data constant = load(%s)' % json.dumps(CONSTANT_CSV)

    completion_samples = [
        {"text": "fi", "matches": {"fit"}},
        {"text": "plot tr", "matches": {"trace"}},
        {"text": "fit m with h", "matches": {"hmc"}},
    ]
    complete_code_samples = ["1 + 2", "fit m", 'print "x"', "model m {\n  Y = d\n}", "# only a comment { "]
    incomplete_code_samples = ["model m {", "summary m.C[1,", 'load("x.csv",', "model m {\n  # } in a comment\n"]
    # A string ends on its line: one left open is invalid, inside brackets too.
    invalid_code_samples = ["fit = 3", "}", "model m { Y = }", "(" * 200, 'print "abc', 'load("x.cs']

    code_page_something = "fit?"
    code_generate_error = "fit nothing"
    code_execute_result = [
        {"code": "1 + 2", "result": "3"},
        {"code": "2 * 3 * 7", "result": "42"},
        {"code": '"copulas"', "result": '"copulas"'},
    ]
    code_display_data = [
        {"code": "data sim = simulate(FullCopula(p = 3), n = 50, levels = 3, seed = 1)\nsummary sim", "mime": "text/html"},
    ]
    supported_history_operations = ("tail", "range", "search")
    code_history_pattern = "1 + *"
    code_inspect_sample = "fit"
    code_clear_output = "clear"


class IPyKernelTests(jkt.KernelTests):
    # The values of jupyter_kernel_test's own test of ipykernel.
    kernel_name = "python3"
    language_name = "python"
    file_extension = ".py"
    code_hello_world = "print('hello, world')"
    code_stderr = "import sys; print('test', file=sys.stderr)"
    completion_samples = [{"text": "zi", "matches": {"zip"}}]
    complete_code_samples = ["1", "print('hello, world')", "def f(x):\n  return x*2\n\n\n"]
    incomplete_code_samples = ["print('''hello", "def f(x):\n  x*2"]
    invalid_code_samples = ["import = 7q"]
    code_page_something = "print?"
    code_generate_error = "raise"
    code_execute_result = [
        {"code": "1+2+3", "result": "6"},
        {"code": "[n*n for n in range(1, 4)]", "result": "[1, 4, 9]"},
    ]
    code_display_data = [
        {"code": "from IPython.display import HTML, display; display(HTML('<b>test</b>'))", "mime": "text/html"},
    ]
    supported_history_operations = ("tail", "range", "search")
    code_history_pattern = "1?2*"
    code_inspect_sample = "zip"
    code_clear_output = "from IPython.display import clear_output; clear_output()"


class Outcomes(unittest.TestResult):
    """Records one outcome per test method."""

    def __init__(self):
        super().__init__()
        self.outcomes = {}

    def _name(self, test):
        return test._testMethodName

    def _set(self, test, outcome):
        name = self._name(test)
        old = self.outcomes.get(name, "ok")
        if old.startswith(("fail", "error")):
            return
        self.outcomes[name] = outcome

    def addSuccess(self, test):
        super().addSuccess(test)
        name = self._name(test)
        if name not in self.outcomes:
            self.outcomes[name] = "ok"

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        target = getattr(test, "test_case", test)  # a subtest's test
        self._set(target, "skipped: " + (getattr(test, "_subDescription", lambda: "")() + " " + (reason or "no sample")).strip())

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._set(test, "fail: " + self._exc_info_to_string(err, test).strip().splitlines()[-1])

    def addError(self, test, err):
        super().addError(test, err)
        self._set(test, "error: " + self._exc_info_to_string(err, test).strip().splitlines()[-1])

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is not None:
            kind = "fail" if issubclass(err[0], test.failureException) else "error"
            self._set(test, "%s: %s: %s" % (kind, subtest._subDescription(), self._exc_info_to_string(err, test).strip().splitlines()[-1]))


def run(cls):
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(cls)
    result = Outcomes()
    suite.run(result)
    return result.outcomes


def main():
    with open(CONSTANT_CSV, "w") as f:
        f.write("a,b\n1,5\n2,5\n3,5\n")
    out = {"copulang": run(CopulangKernelTests), "ipykernel": run(IPyKernelTests)}
    print(json.dumps(out, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
