package session

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/copulang/copulang/compiler"
	"github.com/copulang/copulang/dsl"
	"github.com/copulang/copulang/inference"
)

// This file runs the statements that show values: a bare expression (the
// cell's result), print, help and clear; and Evaluate, for the kernel's
// user_expressions.

// result is the value of a bare expression statement, as a bundle.
func (s *Session) result(x *compiler.Result) (MimeBundle, error) {
	text, err := s.valueText(x.Value, true)
	if err != nil {
		return nil, err
	}
	return MimeBundle{"text/plain": text}, nil
}

// print writes the values to stdout, separated by spaces.
func (s *Session) print(x *compiler.Print, out Output) error {
	parts := make([]string, len(x.Values))
	for i, v := range x.Values {
		text, err := s.valueText(v, false)
		if err != nil {
			return err
		}
		parts[i] = text
	}
	out.Stream("stdout", strings.Join(parts, " ")+"\n")
	return nil
}

// help writes the documentation of a word, or the list of statements, into
// the cell's output, where a saved notebook, nbconvert and jupyter console
// keep it, as Python's help() does. (A cell of only WORD? pages it instead:
// pageHelp.)
func (s *Session) help(x *compiler.Help, out Output) error {
	text := helpIndex()
	if x.Topic != "" {
		text, _ = compiler.Doc(x.Topic)
	}
	out.Stream("stdout", text+"\n")
	return nil
}

// helpIndex lists the statements with the first line of each one's
// documentation.
func helpIndex() string {
	var b strings.Builder
	b.WriteString("copulang statements (help WORD for more):\n")
	for _, kw := range compiler.Keywords() {
		doc, _ := compiler.Doc(kw)
		fmt.Fprintf(&b, "  %s\n", synopsis(doc))
	}
	b.WriteString("An expression alone (a name, m.C[1, 2], 2 * pi) shows its value.\n")
	b.WriteString("help also explains distributions (help FactorModel), methods (help hmc), plot kinds (help trace), settings (help seed) and the parts of a fitted model (help partial, help regress).")
	return b.String()
}

// synopsis is the first line of a statement's documentation, or its first
// lines up to a line of "}" joined with "; " when the first opens a brace
// (model NAME {, whose body a newcomer needs to see), comments dropped.
func synopsis(doc string) string {
	lines := strings.Split(doc, "\n")
	if !strings.HasSuffix(lines[0], "{") {
		return lines[0]
	}
	var body []string
	for _, l := range lines[1:] {
		l, _, _ = strings.Cut(l, "#")
		l = strings.TrimSpace(l)
		if l == "}" {
			return lines[0] + " " + strings.Join(body, "; ") + " }"
		}
		body = append(body, l)
	}
	return lines[0]
}

// clearOutput clears the cell's output where the output can.
func clearOutput(out Output) {
	if c, ok := out.(OutputClearer); ok {
		c.ClearOutput(false)
	}
}

// numberText writes a number as a calculator would: the fewest digits that
// read back as it, in positional notation from 10⁻⁴ up to 10¹⁶ (123456789.123,
// not 1.23456789123e+08) and in exponent notation beyond; −0 is 0.
func numberText(v float64) string {
	if v == 0 {
		return "0"
	}
	if a := math.Abs(v); a >= 1e-4 && a < 1e16 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// valueText renders a value. quoted writes strings as literals (a cell's
// result), else as their text (print).
func (s *Session) valueText(v compiler.Value, quoted bool) (string, error) {
	switch v.Kind {
	case compiler.NumberValue:
		return numberText(v.Number), nil
	case compiler.StringValue:
		if quoted {
			return strconv.Quote(v.Text), nil
		}
		return v.Text, nil
	}
	if v.Minus != nil {
		return s.contrastText(v)
	}
	ref := v.Ref
	if ref.Member == "" && len(ref.Index) == 0 {
		if d, ok := s.data[ref.Name]; ok {
			return describeData(d), nil
		}
		if m, ok := s.models[ref.Name]; ok {
			return describeModel(ref.Name, m, s.data), nil
		}
		return "", fmt.Errorf("%s is not bound", ref.Name)
	}
	m, ps, err := s.summaryParams(&ref)
	if err != nil {
		return "", err
	}
	sums := paramSummaries(m, ps, compiler.DefaultProb)
	if len(ps) == 1 {
		sm := sums[0]
		truth := ""
		if t := ps[0].truth; !math.IsNaN(t) {
			// Simulated data: the value to compare with, as the plots mark it.
			truth = "; true value " + tableNum("%.3f", t)
		}
		return fmt.Sprintf("%s = %s (posterior mean; sd %s, 90%% interval %s to %s, %s%s)",
			ps[0].label, tableNum("%.3f", sm.Mean), tableNum("%.3f", sm.SD), tableNum("%.3f", sm.Q5), tableNum("%.3f", sm.Q95), plural(m.Fit.KeptDraws(), "draw"), truth), nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "posterior means of %s (%s):", refLabel(&ref, columnTexts(m.Names())), plural(m.Fit.KeptDraws(), "draw"))
	s.writeMeans(&b, ps, sums, nil, wholeSummary(&ref, m))
	return b.String(), nil
}

// writeMeans writes one line per scalar, its label, posterior mean and sd
// (and the share of its draws above 0 when positive is not nil); in the
// kernel, as its tables, only the first and last lines of a long list, and
// whole, where to find every one.
func (s *Session) writeMeans(b *strings.Builder, ps []param, sums []inference.Summary, positive []float64, whole string) {
	width := 0
	for _, p := range ps {
		width = max(width, len(p.label))
	}
	// In the kernel, as the text of its tables: the first and last lines of
	// a long list.
	head, tail := len(ps), 0
	if n := s.opts.TextRows; n > 0 && len(ps) > n {
		head, tail = textHead, textTail
	} else if n := s.opts.TableRows; n > 0 && len(ps) > n {
		head, tail = n/2, n-n/2
	}
	for k, p := range ps {
		if k == head && tail > 0 {
			fmt.Fprintf(b, "\n  … (%d of %d shown, the first %d and the last %d: %s)", head+tail, len(ps), head, tail, whole)
		}
		if k >= head && k < len(ps)-tail {
			continue
		}
		fmt.Fprintf(b, "\n  %-*s  %6s  (sd %s", width, p.label, tableNum("%.3f", sums[k].Mean), tableNum("%.3f", sums[k].SD))
		if positive != nil {
			fmt.Fprintf(b, ", P(>0) %s", tableNum("%.3f", positive[k]))
		}
		b.WriteString(")")
	}
}

// contrastText renders a value A - B: the posterior of the difference of
// paired draws, as valueText renders A.
func (s *Session) contrastText(v compiler.Value) (string, error) {
	d, err := s.contrastParams(&v.Ref, v.Minus)
	if err != nil {
		return "", err
	}
	sums := paramSummaries(d.a, d.ps, compiler.DefaultProb)
	positive := make([]float64, len(d.ps))
	for k, p := range d.ps {
		positive[k] = positiveShare(p.draws)
	}
	var b strings.Builder
	if len(d.ps) == 1 {
		sm, truth := sums[0], ""
		if t := d.ps[0].truth; !math.IsNaN(t) {
			truth = "; true value " + tableNum("%.3f", t)
		}
		fmt.Fprintf(&b, "%s = %s (posterior mean of the paired differences; sd %s, 90%% interval %s to %s, P(>0) %s, %s%s)",
			d.ps[0].label, tableNum("%.3f", sm.Mean), tableNum("%.3f", sm.SD), tableNum("%.3f", sm.Q5), tableNum("%.3f", sm.Q95),
			tableNum("%.3f", positive[0]), plural(d.chains*d.draws, "draw"), truth)
	} else {
		fmt.Fprintf(&b, "posterior means of %s, the difference of paired draws (%s):", d.label, plural(d.chains*d.draws, "draw"))
		s.writeMeans(&b, d.ps, sums, positive, contrastWhole(&v.Ref, v.Minus, d))
	}
	for _, n := range d.notes {
		b.WriteString("\nnote: " + n)
	}
	return b.String(), nil
}

// describeModel is the one-line description of a model binding and its
// fit; data are the data sets bound now, which say whether the model's
// data name still names its data (dataTextIn).
func describeModel(name string, m *Model, data map[string]*Dataset) string {
	text := fmt.Sprintf("model %s: %s on columns %s of %s", name, modelKind(m.Decl.Model), strings.Join(m.Names(), ", "), dataTextIn(m, data))
	if m.Fit != nil && len(m.Fit.C) > 0 {
		text += fmt.Sprintf("\nfitted with %s: %s × %s", fitRan(m.Plan, m.Fit), plural(len(m.Fit.C), "chain"), plural(len(m.Fit.C[0]), "draw"))
	}
	return text
}

// Evaluate computes one expression (a name, a part of a fitted model, a
// number or a string) against the bindings, without running anything: the
// kernel's user_expressions. Anything but a single expression is an error,
// whose traceback names it as Execute's do.
func (s *Session) Evaluate(ctx context.Context, expr string) (MimeBundle, error) {
	bundle, err := s.evaluate(ctx, expr)
	nameTraceback(err)
	return bundle, err
}

func (s *Session) evaluate(ctx context.Context, expr string) (MimeBundle, error) {
	src := []byte(expr)
	file, err := dsl.Parse("", src)
	if err != nil {
		return nil, positionedError("SyntaxError", err, src)
	}
	if len(file.Stmts) != 1 {
		return nil, &Error{Name: "SyntaxError", Value: fmt.Sprintf("want one expression, got %d statements", len(file.Stmts))}
	}
	st, ok := file.Stmts[0].(*dsl.ExprStmt)
	if !ok {
		return nil, &Error{Name: "SyntaxError", Value: "want an expression, got a " + stmtKeyword(file.Stmts[0]) + " statement"}
	}
	prog, err := compiler.Check(&dsl.File{Pos: file.Pos, EndPos: file.EndPos, Stmts: []dsl.Stmt{st}}, s.env(ctx))
	if err != nil {
		return nil, positionedError("CheckError", err, src)
	}
	bundle, err := s.result(prog.Stmts[0].(*compiler.Result))
	if err != nil {
		var se *Error
		if errors.As(err, &se) {
			return nil, se
		}
		return nil, runtimeError(err, st.Pos, src)
	}
	return bundle, nil
}
