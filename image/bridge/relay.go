// The id-mapping relay between HTTP callers and the child's stdio. Every request gets a
// bridge-unique id on its way in (two gateway replicas both send id 1) and its caller's id back,
// byte for byte, on its way out. A progress token is rewritten the same way so a progress
// notification reaches the one call that asked for it. Server-to-client requests (sampling,
// elicitation, roots/list) have no client to go to: the child gets -32601 for them at once.
package main

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strconv"
	"sync"
)

var (
	errBusy      = errors.New("too many pending requests")
	errChildGone = errors.New("the server process has exited")
)

// call is one request waiting for the child's answer.
type call struct {
	callerID    json.RawMessage
	callerToken json.RawMessage // the caller's progress token, when progress is streamed
	answer      chan map[string]json.RawMessage
	progress    chan []byte // nil unless the caller streams progress
	gone        chan struct{}
}

// relay owns the pending table and the child's stdin.
type relay struct {
	log *slog.Logger
	max int

	wmu   sync.Mutex
	stdin io.Writer

	mu       sync.Mutex
	next     uint64
	pending  map[string]*call // by bridge id (decimal)
	progress map[string]*call // by bridge progress token
	dead     bool
	gone     chan struct{}
}

func newRelay(stdin io.Writer, maxPending int, log *slog.Logger) *relay {
	return &relay{
		log:      log,
		max:      maxPending,
		stdin:    stdin,
		pending:  map[string]*call{},
		progress: map[string]*call{},
		gone:     make(chan struct{}),
	}
}

// send writes one message as one line to the child.
func (r *relay) send(line []byte) error {
	r.wmu.Lock()
	defer r.wmu.Unlock()
	if _, err := r.stdin.Write(append(line, '\n')); err != nil {
		return errChildGone
	}
	return nil
}

// notify forwards a notification (or anything the child should get unchanged).
func (r *relay) notify(m *message) error {
	r.mu.Lock()
	dead := r.dead
	r.mu.Unlock()
	if dead {
		return errChildGone
	}
	return r.send(encodeFields(m.fields))
}

// start registers a request and writes it to the child with a bridge id. With streamProgress and
// a progress token in the request, progress notifications for it arrive on call.progress.
func (r *relay) start(m *message, streamProgress bool) (*call, string, error) {
	r.mu.Lock()
	if r.dead {
		r.mu.Unlock()
		return nil, "", errChildGone
	}
	if len(r.pending) >= r.max {
		r.mu.Unlock()
		return nil, "", errBusy
	}
	r.next++
	key := strconv.FormatUint(r.next, 10)
	c := &call{callerID: m.id, answer: make(chan map[string]json.RawMessage, 1), gone: r.gone}
	r.pending[key] = c
	fields := make(map[string]json.RawMessage, len(m.fields))
	for k, v := range m.fields {
		fields[k] = v
	}
	out := &message{fields: fields}
	if token, ok := m.progressToken(); ok && streamProgress {
		c.callerToken = token
		c.progress = make(chan []byte, 16)
		bridgeToken := json.RawMessage(strconv.Quote("agw-bridge-" + key))
		r.progress[string(bridgeToken)] = c
		out.setProgressToken(bridgeToken)
	}
	r.mu.Unlock()
	fields["id"] = json.RawMessage(key)
	if err := r.send(encodeFields(fields)); err != nil {
		r.forget(key)
		return nil, "", err
	}
	return c, key, nil
}

// forget drops a call that will not be answered (deadline, caller gone) and tells the child to
// stop working on it.
func (r *relay) forget(key string) {
	r.mu.Lock()
	c, ok := r.pending[key]
	delete(r.pending, key)
	r.dropProgress(key, c)
	dead := r.dead
	r.mu.Unlock()
	if ok && !dead {
		params, _ := json.Marshal(map[string]any{"requestId": json.RawMessage(key), "reason": "request abandoned by the HTTP caller"})
		_ = r.send(encodeFields(map[string]json.RawMessage{
			"jsonrpc": json.RawMessage(`"2.0"`),
			"method":  json.RawMessage(`"notifications/cancelled"`),
			"params":  params,
		}))
	}
}

func (r *relay) dropProgress(key string, c *call) {
	if c != nil && c.progress != nil {
		delete(r.progress, strconv.Quote("agw-bridge-"+key))
	}
}

// pendingCount is for tests and health.
func (r *relay) pendingCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.pending)
}

// close marks the child gone: every pending and later call fails with errChildGone.
func (r *relay) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.dead {
		return
	}
	r.dead = true
	r.pending = map[string]*call{}
	r.progress = map[string]*call{}
	close(r.gone)
}

// dispatch handles one line from the child's stdout.
func (r *relay) dispatch(line []byte) {
	m, err := parseMessage(line)
	if err != nil {
		r.log.Warn("child wrote a line that is not a JSON-RPC message; dropped", "bytes", len(line))
		return
	}
	switch m.kind {
	case kindResponse:
		r.answer(m)
	case kindRequest:
		r.log.Info("server-to-client request answered method-not-found (no client behind the bridge)", "method", logName(m.method))
		// Written from another goroutine: this one must keep reading stdout, or a child blocked
		// writing to it would never read its stdin (both pipes full, both sides waiting).
		refusal := errorResponse(m.id, codeMethodNotFound, "Method not found: this server runs behind a stateless HTTP bridge")
		go func() { _ = r.send(refusal) }()
	case kindNotification:
		if m.method == "notifications/progress" {
			r.routeProgress(m)
			return
		}
		r.log.Debug("server notification dropped (no GET stream)", "method", logName(m.method))
	}
}

func (r *relay) answer(m *message) {
	key := string(m.id)
	r.mu.Lock()
	c, ok := r.pending[key]
	delete(r.pending, key)
	r.dropProgress(key, c)
	r.mu.Unlock()
	if !ok {
		r.log.Info("response for no pending request dropped (abandoned or unknown id)")
		return
	}
	m.fields["id"] = c.callerID
	c.answer <- m.fields
}

func (r *relay) routeProgress(m *message) {
	var params map[string]json.RawMessage
	if json.Unmarshal(m.fields["params"], &params) != nil || params == nil {
		return
	}
	r.mu.Lock()
	c, ok := r.progress[string(compact(params["progressToken"]))]
	r.mu.Unlock()
	if !ok {
		return
	}
	params["progressToken"] = c.callerToken
	m.fields["params"] = encodeFields(params)
	select {
	case c.progress <- encodeFields(m.fields):
	default: // a caller that does not keep up loses progress, never the answer
	}
}

// logName bounds a caller- or server-chosen method name before it reaches a log line.
func logName(method string) string {
	if len(method) > 64 {
		return method[:64] + "…"
	}
	return method
}
