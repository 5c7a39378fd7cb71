// The HTTP face: POST /mcp (Streamable HTTP, one JSON-RPC message per request, no session),
// GET /healthz (the child is alive) and /readyz (alive and not draining). Everything on /mcp needs
// the bearer token; refusals say nothing beyond their status. Logs carry the method, status and
// duration, never a body.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// maxBodyBytes bounds one HTTP request body.
const maxBodyBytes = 4 << 20

type handler struct {
	auth        *auth
	relay       *relay
	init        *initCache
	callTimeout time.Duration
	log         *slog.Logger
	alive       atomic.Bool
	draining    atomic.Bool
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	endKeepAliveWhileDraining(w, h.draining.Load())
	switch r.URL.Path {
	case "/healthz":
		h.probe(w, h.alive.Load())
	case "/readyz":
		h.probe(w, h.alive.Load() && !h.draining.Load())
	case "/mcp":
		if !h.auth.allows(r) {
			w.WriteHeader(http.StatusUnauthorized)
			h.log.Info("mcp", "status", http.StatusUnauthorized)
			return
		}
		if r.Method != http.MethodPost {
			// No GET stream (server notifications are dropped) and no session to DELETE.
			w.Header().Set("Allow", http.MethodPost)
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		h.post(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (h *handler) probe(w http.ResponseWriter, ok bool) {
	if !ok {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	_, _ = io.WriteString(w, "ok\n")
}

func (h *handler) post(w http.ResponseWriter, r *http.Request) {
	started := time.Now()
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		writeJSON(w, http.StatusRequestEntityTooLarge, errorResponse(nil, codeInvalidRequest, "request body over 4 MiB"))
		return
	}
	if err != nil {
		return
	}
	m, err := parseMessage(body)
	if err != nil {
		code := codeInvalidRequest
		if errors.Is(err, errNotJSON) {
			code = codeParseError
		}
		writeJSON(w, http.StatusBadRequest, errorResponse(nil, code, err.Error()))
		return
	}
	status := h.dispatch(w, r, m)
	h.log.Info("mcp", "method", logName(m.method), "status", status, "ms", time.Since(started).Milliseconds())
}

// dispatch answers one message and returns the HTTP status it gave (0: the caller left).
func (h *handler) dispatch(w http.ResponseWriter, r *http.Request, m *message) int {
	switch {
	case m.kind == kindResponse:
		// The bridge forwards no server-to-client request, so no response can be owed to the child.
		w.WriteHeader(http.StatusAccepted)
		return http.StatusAccepted
	case m.kind == kindNotification:
		return h.notification(w, m)
	case m.method == "initialize":
		ctx, cancel := context.WithTimeout(r.Context(), h.callTimeout)
		defer cancel()
		answer, cached, err := h.init.initialize(ctx, m, func(m *message) (map[string]json.RawMessage, error) {
			return h.call(ctx, nil, m)
		}, nil)
		if cached {
			h.log.Info("initialize answered from the cache")
		}
		return h.finish(w, m, answer, err)
	default:
		ctx, cancel := context.WithTimeout(r.Context(), h.callTimeout)
		defer cancel()
		// server/discover is how a 2026 caller tells the eras apart, and a 2026 request names its
		// revision itself: both reach the child as sent, initialized or not. Only a 2025-era
		// request (which presumes an initialize) primes the child.
		if m.method != "server/discover" && !m.statelessEra() && !h.init.ready() {
			h.prime(ctx)
		}
		var stream *eventStream
		if acceptsEventStream(r) {
			stream = &eventStream{w: w}
		}
		answer, err := h.call(ctx, stream, m)
		if stream != nil && stream.started {
			return stream.finish(m, answer, err)
		}
		return h.finish(w, m, answer, err)
	}
}

// prime initializes the child on the bridge's own behalf (see init_cache.go). A failure is only
// logged: the request is relayed anyway and the child answers it as it will.
func (h *handler) prime(ctx context.Context) {
	m, err := parseMessage([]byte(primeRequest))
	if err != nil {
		h.log.Error("the bridge's own initialize does not parse", "error", err.Error())
		return
	}
	notification, err := parseMessage([]byte(initializedNotification))
	if err != nil {
		h.log.Error("the bridge's notifications/initialized does not parse", "error", err.Error())
		return
	}
	answer, cached, err := h.init.initialize(ctx, m, func(m *message) (map[string]json.RawMessage, error) {
		return h.call(ctx, nil, m)
	}, func() { _ = h.relay.notify(notification) })
	if cached {
		return
	}
	if err != nil || answer["result"] == nil {
		h.log.Warn("the bridge's own initialize failed; relaying the request as is")
		return
	}
	h.log.Info("initialized the server on the bridge's own behalf")
}

func (h *handler) notification(w http.ResponseWriter, m *message) int {
	forward := true
	switch m.method {
	case "notifications/initialized":
		forward = h.init.forwardInitialized()
	case "notifications/cancelled":
		// Its requestId is the caller's id, which the child never saw; a caller cancels by
		// closing the request, which sends the child a cancellation with the bridge's id.
		forward = false
	}
	if forward {
		if err := h.relay.notify(m); err != nil {
			writeJSON(w, http.StatusBadGateway, errorResponse(nil, codeInternalError, "the server process has exited"))
			return http.StatusBadGateway
		}
	}
	w.WriteHeader(http.StatusAccepted)
	return http.StatusAccepted
}

// call relays a request and waits for its answer, the deadline, the caller leaving or the child
// exiting. With a stream, progress for the request is written as server-sent events as it comes.
func (h *handler) call(ctx context.Context, stream *eventStream, m *message) (map[string]json.RawMessage, error) {
	c, key, err := h.relay.start(m, stream != nil)
	if err != nil {
		return nil, err
	}
	for {
		select {
		case answer := <-c.answer:
			// Progress the child wrote before its answer may still sit in the channel (select
			// picks among ready cases at random): it goes out first, in the child's order.
			for {
				select {
				case event := <-c.progress:
					stream.progress(event)
				default:
					return answer, nil
				}
			}
		case event := <-c.progress:
			stream.progress(event)
		case <-c.gone:
			return nil, errChildGone
		case <-ctx.Done():
			h.relay.forget(key)
			return nil, ctx.Err()
		}
	}
}

// failure maps a relay error to its HTTP status and JSON-RPC message (0: nobody to answer).
func failure(err error) (int, string) {
	switch {
	case errors.Is(err, errBusy):
		return http.StatusServiceUnavailable, "too many requests pending at the server"
	case errors.Is(err, errChildGone):
		return http.StatusBadGateway, "the server process has exited"
	case errors.Is(err, context.DeadlineExceeded):
		return http.StatusGatewayTimeout, "the server did not answer in time"
	}
	return 0, ""
}

func (h *handler) finish(w http.ResponseWriter, m *message, answer map[string]json.RawMessage, err error) int {
	if err == nil {
		writeJSON(w, http.StatusOK, encodeFields(answer))
		return http.StatusOK
	}
	status, text := failure(err)
	if status == 0 {
		return 0
	}
	if status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "1")
	}
	writeJSON(w, status, errorResponse(m.id, codeInternalError, text))
	return status
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func acceptsEventStream(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		media, _, _ := strings.Cut(part, ";")
		if strings.EqualFold(strings.TrimSpace(media), "text/event-stream") {
			return true
		}
	}
	return false
}

// eventStream turns a JSON answer into an SSE stream when the first progress notification comes
// before the answer; a request without progress is still answered as application/json.
type eventStream struct {
	w       http.ResponseWriter
	started bool
}

func (s *eventStream) progress(event []byte) {
	if !s.started {
		s.started = true
		s.w.Header().Set("Content-Type", "text/event-stream")
		s.w.Header().Set("Cache-Control", "no-cache")
		s.w.WriteHeader(http.StatusOK)
	}
	s.event(event)
}

func (s *eventStream) event(data []byte) {
	_, _ = fmt.Fprintf(s.w, "event: message\ndata: %s\n\n", data)
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
}

// finish ends a started stream with the answer, or with a JSON-RPC error when there is none (the
// status is already 200 by then).
func (s *eventStream) finish(m *message, answer map[string]json.RawMessage, err error) int {
	if err == nil {
		s.event(encodeFields(answer))
		return http.StatusOK
	}
	if _, text := failure(err); text != "" {
		s.event(errorResponse(m.id, codeInternalError, text))
	}
	return http.StatusOK
}
