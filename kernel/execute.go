package kernel

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/copulang/copulang/session"
)

// This file runs execute_requests: one at a time, in arrival order, while
// a shell reader keeps taking messages off the socket (see serveShell).

// execQueue holds the execute_requests waiting behind the running one, and
// whether one is running.
type execQueue struct {
	mu      sync.Mutex
	running bool
	items   []request
}

// enqueueUnlessIdle queues r behind the running request and reports true;
// if none is running it reports false and r's caller must run it (the
// queue is then marked running).
func (q *execQueue) enqueueUnlessIdle(r request) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.running {
		q.items = append(q.items, r)
		return true
	}
	q.running = true
	return false
}

// next returns the oldest queued request, or marks the queue idle and
// reports false when there is none.
func (q *execQueue) next() (request, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.items) == 0 {
		q.running = false
		return request{}, false
	}
	r := q.items[0]
	q.items[0] = request{}
	q.items = q.items[1:]
	return r, true
}

// drain removes and returns every waiting request.
func (q *execQueue) drain() []request {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := q.items
	q.items = nil
	return out
}

// runExecutes runs r, then the requests queued meanwhile, until none is
// left.
func (k *kernel) runExecutes(ctx context.Context, r request) {
	for {
		if k.cutoffs.sentBefore(r.m) {
			// Sent before its client could have seen the error of an
			// earlier cell, but delayed past the abort (a busy notebook
			// server relaying a Run All): aborted all the same.
			k.abortRequests([]request{r})
		} else {
			k.runExecute(ctx, r)
		}
		var ok bool
		if r, ok = k.executes.next(); !ok {
			return
		}
	}
}

// executeRequest is the content of execute_request.
type executeRequest struct {
	Code            string            `json:"code"`
	Silent          bool              `json:"silent"`
	StoreHistory    *bool             `json:"store_history"` // default: not silent
	UserExpressions map[string]string `json:"user_expressions"`
	AllowStdin      bool              `json:"allow_stdin"`
	StopOnError     *bool             `json:"stop_on_error"` // default: true
}

// runExecute answers one execute_request: busy, execute_input, the cell's
// outputs and its execute_result or error on iopub, then (once those are
// written) the execute_reply, then idle. After a failure with
// stop_on_error (and not silent), it first waits for the shell to go quiet
// (awaitQuiet), takes every execute_request queued meanwhile, and after the
// reply answers them "aborted", as ipykernel does.
func (k *kernel) runExecute(ctx context.Context, r request) {
	k.setExecuting(r.m)
	content, abort := k.execute(ctx, r.m)
	var aborted []request
	if abort {
		k.awaitQuiet(ctx)
		// Taken before the reply goes out: a request sent after the
		// client has seen it runs.
		aborted = k.executes.drain()
	}
	if abort {
		// Measured before the reply is written: the client cannot send a
		// request after seeing the reply earlier than this, however long
		// this goroutine waits to run again once the reply is out.
		k.cutoffs.record(r.m, time.Since(r.arrived))
	}
	k.reply(k.shell, r, "execute_reply", content)
	k.setExecuting(nil)
	k.abortRequests(aborted)
}

// execute runs one cell and returns the content of its execute_reply, and
// whether the requests queued behind it must be aborted.
func (k *kernel) execute(ctx context.Context, m *Message) (reply map[string]any, abort bool) {
	var req executeRequest
	if err := json.Unmarshal(m.Content, &req); err != nil {
		return errorContent(&session.Error{Name: "InternalError", Value: "malformed execute_request: " + err.Error()}), false
	}
	store := !req.Silent
	if req.StoreHistory != nil && !req.Silent {
		store = *req.StoreHistory
	}
	k.mu.Lock()
	// An empty cell, or one of blanks, takes no execution count and no
	// history line, as in IPython: the reply carries the last count.
	numbered := store && strings.TrimSpace(req.Code) != ""
	if numbered {
		k.count++
		k.history = append(k.history, historyEntry{line: k.count, input: req.Code})
	}
	count := k.count
	// The engine names the cell by its count only when it took one.
	cellCount := 0
	if numbered {
		cellCount = count
	}
	cellCtx, cancel := context.WithCancel(ctx)
	k.cancelCell = cancel
	k.mu.Unlock()

	if !req.Silent {
		k.publish(m, "execute_input", map[string]any{"code": req.Code, "execution_count": count})
	}
	out := &iopubOutput{k: k, parent: m, silent: req.Silent}
	var cellOut session.Output = out
	var console *consoleOutput
	if !k.consoles.executes(m.Header.Session, req.Code) {
		cellOut = newMirroredOutput(out)
	} else {
		console = newConsoleOutput(out, m.Header.Session)
		cellOut = console
		k.mu.Lock()
		k.consoleCell = console
		k.mu.Unlock()
	}
	bundle, err := k.runCell(cellCtx, cellCount, req.Code, cellOut)
	if console != nil {
		k.mu.Lock()
		k.consoleCell = nil
		k.mu.Unlock()
		// A statement that stopped between two states of its progress
		// (a panic) leaves its line open; the result or error starts a
		// line of its own.
		console.endLine()
	}
	if mirrored, ok := cellOut.(*mirroredOutput); ok {
		mirrored.endLine()
	}

	if err == nil && bundle != nil && !req.Silent {
		data, merr := json.Marshal(bundle)
		if merr != nil {
			err = &session.Error{Name: "InternalError", Value: "cannot encode the result: " + merr.Error()}
		} else {
			k.publish(m, "execute_result", map[string]any{
				"execution_count": count, "data": json.RawMessage(data), "metadata": map[string]any{},
			})
			if text, ok := bundle["text/plain"].(string); ok && store {
				k.setHistoryOutput(count, text)
			}
		}
	}
	var expressions map[string]any
	if err == nil {
		expressions = k.userExpressions(cellCtx, req.UserExpressions)
	}

	k.mu.Lock()
	k.cancelCell = nil
	k.mu.Unlock()
	cancel()

	if err != nil {
		e := asSessionError(err)
		tb := wireTraceback(e.Traceback)
		if !req.Silent {
			k.publish(m, "error", map[string]any{"ename": e.Name, "evalue": e.Value, "traceback": tb})
		}
		content := map[string]any{
			"status": "error", "execution_count": count,
			"ename": e.Name, "evalue": e.Value, "traceback": tb,
			"user_expressions": map[string]any{},
		}
		return content, !req.Silent && (req.StopOnError == nil || *req.StopOnError)
	}
	return map[string]any{
		"status": "ok", "execution_count": count,
		"payload": out.payloads(), "user_expressions": expressions,
	}, false
}

// userExpressions evaluates the user_expressions of a successful cell,
// each to a display bundle or its own error, as the protocol asks.
func (k *kernel) userExpressions(ctx context.Context, exprs map[string]string) map[string]any {
	out := make(map[string]any, len(exprs))
	for name, expr := range exprs {
		bundle, err := k.evaluate(ctx, expr)
		if err != nil {
			e := asSessionError(err)
			tb := e.Traceback
			if tb == nil {
				tb = []string{e.Name + ": " + e.Value}
			}
			out[name] = map[string]any{"status": "error", "ename": e.Name, "evalue": e.Value, "traceback": wireTraceback(tb)}
			continue
		}
		if bundle == nil {
			bundle = session.MimeBundle{}
		}
		out[name] = map[string]any{"status": "ok", "data": bundle, "metadata": map[string]any{}}
	}
	return out
}

// evaluate calls the engine's Evaluate, turning a panic into an
// InternalError.
func (k *kernel) evaluate(ctx context.Context, expr string) (bundle session.MimeBundle, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = k.panicError("user_expressions", r)
		}
	}()
	return k.engine.Evaluate(ctx, expr)
}

// awaitQuiet returns once no shell message has arrived for abortQuiet, or
// abortMax after it was called, or when ctx is done. It runs after a cell
// failed and before its reply is sent: a client that sent more cells
// without waiting (a notebook's Run All) has them arrive meanwhile, and
// they are aborted; a client that waits for the reply before sending its
// next cell cannot have that cell aborted, since the reply comes after the
// aborting ends. This is ipykernel's stop_on_error rule with a grace period
// for requests still in flight, which ipykernel gets from being slower.
func (k *kernel) awaitQuiet(ctx context.Context) {
	start := time.Now()
	limit := start.Add(abortMax)
	for {
		now := time.Now()
		if !now.Before(limit) {
			k.log.Warn("shell still busy when the abort after an error ended", "after", now.Sub(start))
			return
		}
		quietAt := time.Unix(0, k.lastShell.Load()).Add(abortQuiet)
		if !now.Before(quietAt) {
			return
		}
		select {
		case <-time.After(min(quietAt.Sub(now), limit.Sub(now))):
		case <-ctx.Done():
			return
		}
	}
}

// abortRequests answers each request with status "aborted" and no
// execution_count (a notebook then shows In [ ]), between busy and idle.
func (k *kernel) abortRequests(queued []request) {
	for _, r := range queued {
		k.publish(r.m, "status", map[string]string{"execution_state": "busy"})
		k.reply(k.shell, r, "execute_reply", map[string]any{"status": "aborted"})
		k.publish(r.m, "status", map[string]string{"execution_state": "idle"})
	}
	if len(queued) > 0 {
		k.log.Info("aborted the cells queued behind an error", "cells", len(queued))
	}
}

// cutoffs remembers, for each client session (header.session) whose cell
// failed with stop_on_error, a time on that client's own clock: the failed
// request's header.date plus how long the kernel took from receiving it to
// sending its error reply. The client cannot have seen the error before
// then, so an execute_request of that session dated earlier was sent
// without knowledge of it and is aborted, however late it arrives. Both
// times come from the client's clock, so clock skew between client and
// kernel does not matter; requests without a parseable date are judged by
// the quiet period alone (awaitQuiet). The failed request took at least
// abortQuiet to answer, while a notebook's Run All sends its cells within
// milliseconds, so the margin is wide.
type cutoffs struct {
	mu   sync.Mutex
	by   map[string]time.Time
	fifo []string // sessions in the order first recorded, to bound the map
}

// maxCutoffSessions bounds the sessions remembered.
const maxCutoffSessions = 64

func (c *cutoffs) record(m *Message, took time.Duration) {
	sent, ok := requestDate(m)
	if !ok || m.Header.Session == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.by == nil {
		c.by = make(map[string]time.Time)
	}
	if _, seen := c.by[m.Header.Session]; !seen {
		c.fifo = append(c.fifo, m.Header.Session)
		if len(c.fifo) > maxCutoffSessions {
			delete(c.by, c.fifo[0])
			c.fifo = c.fifo[1:]
		}
	}
	c.by[m.Header.Session] = sent.Add(took - dateResolution)
}

// dateResolution covers dates written to the millisecond (Notebook's
// JavaScript), so that a request sent just after the reply was seen is never
// judged to be earlier.
const dateResolution = 2 * time.Millisecond

// sentBefore reports whether m was sent before its client could have seen
// the reply to its session's last failed cell.
func (c *cutoffs) sentBefore(m *Message) bool {
	sent, ok := requestDate(m)
	if !ok {
		return false
	}
	c.mu.Lock()
	cut, found := c.by[m.Header.Session]
	c.mu.Unlock()
	return found && sent.Before(cut)
}

// requestDate parses a request's header.date (ISO 8601, as jupyter_client
// and Notebook write it).
func requestDate(m *Message) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, m.Header.Date)
	return t, err == nil
}
