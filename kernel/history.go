package kernel

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// historySession is the session number reported for this kernel's inputs;
// requests for session 0 (IPython's "current session") match it too.
const historySession = 1

// historyEntry is one stored input and the text/plain of its
// execute_result (nil if it had none).
type historyEntry struct {
	line   int // execution_count
	input  string
	output *string
}

// historyRequest is the content of history_request.
type historyRequest struct {
	Output         bool   `json:"output"`
	Raw            bool   `json:"raw"`
	HistAccessType string `json:"hist_access_type"`
	Session        int    `json:"session"`
	Start          int    `json:"start"`
	Stop           *int   `json:"stop"`
	N              *int   `json:"n"`
	Pattern        string `json:"pattern"`
	Unique         bool   `json:"unique"`
}

// historyReply answers history_request from this session's inputs: tail
// (last n), range (start <= line < stop) and search (glob pattern, last n,
// optionally unique). Entries are (session, line, input), or with
// output=true (session, line, (input, output)) where output is the
// text/plain of the cell's execute_result or null. A negative n is refused.
func (k *kernel) historyReply(content json.RawMessage) map[string]any {
	var req historyRequest
	if err := json.Unmarshal(content, &req); err != nil {
		return historyError("malformed history_request: " + err.Error())
	}
	if req.N != nil && *req.N < 0 {
		return historyError(fmt.Sprintf("history_request: n = %d; want n >= 0 (the number of latest entries)", *req.N))
	}
	k.mu.Lock()
	all := append([]historyEntry(nil), k.history...)
	k.mu.Unlock()
	picked := selectHistory(all, req)
	out := make([][]any, 0, len(picked))
	for _, e := range picked {
		if req.Output {
			var output any // null when the cell had no result
			if e.output != nil {
				output = *e.output
			}
			out = append(out, []any{historySession, e.line, []any{e.input, output}})
		} else {
			out = append(out, []any{historySession, e.line, e.input})
		}
	}
	return map[string]any{"status": "ok", "history": out}
}

func historyError(msg string) map[string]any {
	return map[string]any{"status": "error", "ename": "ValueError", "evalue": msg, "traceback": []string{"ValueError: " + msg}}
}

// setHistoryOutput records the result text of history line.
func (k *kernel) setHistoryOutput(line int, text string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for i := len(k.history) - 1; i >= 0; i-- {
		if k.history[i].line == line {
			k.history[i].output = &text
			return
		}
	}
}

// selectHistory returns the entries a request asks for, oldest first.
func selectHistory(all []historyEntry, req historyRequest) []historyEntry {
	var picked []historyEntry
	switch req.HistAccessType {
	case "tail":
		picked = lastN(all, req.N)
	case "range":
		if req.Session != 0 && req.Session != historySession {
			break
		}
		for _, e := range all {
			if e.line >= req.Start && (req.Stop == nil || e.line < *req.Stop) {
				picked = append(picked, e)
			}
		}
	case "search":
		re := globRegexp(req.Pattern)
		var matched []historyEntry
		for _, e := range all {
			if re.MatchString(e.input) {
				matched = append(matched, e)
			}
		}
		if req.Unique {
			seen := make(map[string]bool)
			var uniq []historyEntry
			for i := len(matched) - 1; i >= 0; i-- { // keep the latest of each input
				if !seen[matched[i].input] {
					seen[matched[i].input] = true
					uniq = append([]historyEntry{matched[i]}, uniq...)
				}
			}
			matched = uniq
		}
		picked = lastN(matched, req.N)
	}
	return picked
}

func lastN(es []historyEntry, n *int) []historyEntry {
	if n == nil || *n < 0 || *n >= len(es) {
		return es
	}
	return es[len(es)-*n:]
}

// globRegexp compiles an SQLite-style GLOB pattern (as IPython's history
// search uses): * any text, ? one character, [...] a class, [!...] or [^...]
// a negated class. The whole input must match.
func globRegexp(pattern string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString(`(?s)^`)
	rs := []rune(pattern)
	for i := 0; i < len(rs); i++ {
		switch c := rs[i]; c {
		case '*':
			b.WriteString(`.*`)
		case '?':
			b.WriteString(`.`)
		case '[':
			j := i + 1
			if j < len(rs) && (rs[j] == '!' || rs[j] == '^') {
				j++
			}
			if j < len(rs) && rs[j] == ']' {
				j++
			}
			for j < len(rs) && rs[j] != ']' {
				j++
			}
			if j >= len(rs) { // no closing bracket: a literal [
				b.WriteString(`\[`)
				continue
			}
			class := rs[i+1 : j]
			b.WriteByte('[')
			if len(class) > 0 && (class[0] == '!' || class[0] == '^') {
				b.WriteByte('^')
				class = class[1:]
			}
			for _, r := range class {
				if r == '\\' || r == '[' || r == ']' {
					b.WriteByte('\\')
				}
				b.WriteRune(r)
			}
			b.WriteByte(']')
			i = j
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString(`$`)
	re, err := regexp.Compile(b.String())
	if err != nil { // cannot happen for the classes built above; match literally
		return regexp.MustCompile(`^` + regexp.QuoteMeta(pattern) + `$`)
	}
	return re
}
