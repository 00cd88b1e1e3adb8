package kernel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
)

// Highlighting describes the language to classic Notebook's editor: the
// kernelspec's kernel.js (which Notebook 6 loads when the kernel is
// selected) defines a CodeMirror 5 mode of this name, and kernel_info's
// language_info.codemirror_mode names it.
type Highlighting struct {
	Mode     string   // CodeMirror mode name, e.g. "copulang"
	MIMEType string   // also registered for the mode, e.g. "text/x-copulang"
	Keywords []string // highlighted as keywords
	Builtins []string // highlighted as builtins (distributions, methods, ...)
}

var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// KernelJS returns the kernel.js that defines h's CodeMirror mode with
// CodeMirror's simple-mode addon: strings, # comments, numbers, keywords,
// builtins, operators, and indentation after an open bracket.
func (h Highlighting) KernelJS() ([]byte, error) {
	if !identifier.MatchString(h.Mode) {
		return nil, fmt.Errorf("kernel: CodeMirror mode name %q is not an identifier", h.Mode)
	}
	words := func(list []string) (string, error) {
		list = append([]string(nil), list...)
		sort.Slice(list, func(i, j int) bool {
			return len(list[i]) > len(list[j]) || len(list[i]) == len(list[j]) && list[i] < list[j]
		})
		for _, w := range list {
			if !identifier.MatchString(w) {
				return "", fmt.Errorf("kernel: highlighted word %q is not an identifier", w)
			}
		}
		b, err := json.Marshal(list)
		return string(b), err
	}
	keywords, err := words(h.Keywords)
	if err != nil {
		return nil, err
	}
	builtins, err := words(h.Builtins)
	if err != nil {
		return nil, err
	}
	mime, _ := json.Marshal(h.MIMEType)
	var b bytes.Buffer
	fmt.Fprintf(&b, kernelJSTemplate, h.Mode, keywords, builtins, h.Mode, h.Mode, mime, h.Mode)
	return b.Bytes(), nil
}

const kernelJSTemplate = `// CodeMirror 5 mode %[1]q for classic Jupyter Notebook, written by
// "copulang install" from the language's own word lists.
//
// Notebook loads kernel.js and starts the kernel at the same time, and a saved
// notebook's language_info makes it ask requirejs for the mode as the file
// opens, from "codemirror/mode/NAME/NAME" among its own static files. This
// file therefore also defines that module, which answers a request still in
// flight; and on load it applies the mode itself, which repairs the editor
// when an earlier request failed and left it as plain text. A request that
// fails after that (a 404 arriving late) would make Notebook switch the
// editor back to plain text, since the mode it asked for is by then the
// current one: Notebook's dispatch is wrapped to ignore exactly that switch
// while the mode is defined.
(function () {
  "use strict";
  var modeModule = "codemirror/mode/" + %[4]q + "/" + %[4]q;
  function defineMode(CodeMirror) {
    if (CodeMirror.modes.hasOwnProperty(%[4]q)) {
      return {};
    }
    var keywords = %[2]s;
    var builtins = %[3]s;
    function words(list) { return new RegExp("(?:" + list.join("|") + ")\\b"); }
    CodeMirror.defineSimpleMode(%[4]q, {
      start: [
        {regex: /"(?:[^\\"]|\\.)*?(?:"|$)/, token: "string"},
        {regex: /#.*/, token: "comment"},
        {regex: /(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?/, token: "number"},
        {regex: words(keywords), token: "keyword"},
        {regex: words(builtins), token: "builtin"},
        {regex: /[A-Za-z_][A-Za-z0-9_]*/, token: "variable"},
        {regex: /[-+*\/=~:<>!]/, token: "operator"},
        {regex: /[\{\[\(]/, indent: true},
        {regex: /[\}\]\)]/, dedent: true}
      ],
      meta: {lineComment: "#"}
    });
    CodeMirror.defineMIME(%[6]s, %[7]q);
    return {};
  }
  define(modeModule, ["codemirror/lib/codemirror", "codemirror/addon/mode/simple"], defineMode);
  define(["codemirror/lib/codemirror", "codemirror/addon/mode/simple"], function (CodeMirror) {
    defineMode(CodeMirror);
    return {onload: function () {
      var notebook = window.Jupyter && window.Jupyter.notebook;
      // The notebook object is sealed: wrap its prototype's method.
      var proto = notebook && Object.getPrototypeOf(notebook);
      if (proto && proto._dispatch_mode && !proto._dispatch_mode.keepsDefinedMode) {
        var dispatch = proto._dispatch_mode;
        var keep = function (spec, newmode) {
          if (spec === "null" && newmode === "null" && this.codemirror_mode === %[5]q &&
              CodeMirror.modes.hasOwnProperty(%[5]q)) {
            return;
          }
          return dispatch.apply(this, arguments);
        };
        keep.keepsDefinedMode = true;
        proto._dispatch_mode = keep;
      }
      if (notebook && notebook.set_codemirror_mode) {
        notebook.set_codemirror_mode(%[5]q);
      }
      console.info("copulang: CodeMirror mode %[5]s defined");
    }};
  });
})();
`
