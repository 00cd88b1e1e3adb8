package session

import (
	"errors"
	"fmt"
	"strings"

	"github.com/copulang/copulang/dsl"
)

// positionedError turns a parse or check failure into an Error whose
// traceback prints every error as line:col: message (file:line:col: in a
// script) with its source line, a caret and its hint. The Error is named
// name, or by the first error's Kind when it has one.
func positionedError(name string, err error, src []byte) *Error {
	var list dsl.ErrorList
	if !errors.As(err, &list) {
		var one *dsl.Error
		if errors.As(err, &one) {
			list = dsl.ErrorList{one}
		}
	}
	if len(list) == 0 {
		return &Error{Name: name, Value: err.Error(), Traceback: []string{name + ": " + err.Error()}}
	}
	if list[0].Kind != "" {
		name = list[0].Kind
	}
	value := list[0].Error()
	if list[0].Hint != "" {
		value += " (" + list[0].Hint + ")"
	}
	if len(list) > 1 {
		value += fmt.Sprintf(" (and %d more)", len(list)-1)
	}
	return &Error{Name: name, Value: value, Traceback: splitLines(list.Format(src))}
}

// errorAt is a failure found while running a statement that belongs to
// a part of it (a given value of predict): runtimeError puts its caret
// there rather than at the statement's start.
type errorAt struct {
	pos dsl.Position
	err error
}

func (e *errorAt) Error() string { return e.err.Error() }
func (e *errorAt) Unwrap() error { return e.err }

// runtimeError reports a failure while running a statement that starts at
// pos (or at an errorAt's position): the position, the message, and the
// statement's source line.
func runtimeError(err error, pos dsl.Position, src []byte) *Error {
	name := "RuntimeError"
	var de *DataError
	if errors.As(err, &de) {
		name = "DataError"
	}
	var at *errorAt
	if errors.As(err, &at) && at.pos.Line > 0 {
		pos = at.pos
	}
	e := &dsl.Error{Pos: pos, Msg: err.Error()}
	return &Error{Name: name, Value: e.Error(), Traceback: splitLines(dsl.ErrorList{e}.Format(src))}
}

// interrupted is the error of a cell stopped by an interrupt.
func interrupted(what string) *Error {
	msg := "interrupted " + what
	return &Error{Name: "KeyboardInterrupt", Value: msg, Traceback: []string{"KeyboardInterrupt: " + msg}}
}

func splitLines(s string) []string {
	return strings.Split(strings.TrimRight(s, "\n"), "\n")
}
