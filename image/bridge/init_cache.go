// The initialize cache: a stdio server has one session, but several HTTP callers (gateway replicas,
// a gateway that restarted) each open one. The first initialize goes to the child and its result
// is kept; every later initialize is answered from it with the caller's own id, and every
// notifications/initialized after the first is swallowed. So the bridge issues no Mcp-Session-Id
// and any caller can send any request at any time. A request that reaches a child no caller has
// initialized (the pod restarted, or the caller initialized another replica of the Service) makes
// the bridge initialize the child itself first (prime): servers that refuse requests before
// initialize would otherwise fail every call until some caller happened to send one.
package main

import (
	"context"
	"encoding/json"
	"sync"
)

type initCache struct {
	mu          sync.Mutex
	result      json.RawMessage
	inflight    chan struct{}
	initialized bool
}

// initialize answers an initialize request: from the cache, after the one in flight, or by
// calling the child (through call) when nothing succeeded yet. A failed first attempt is not
// cached; the next caller tries again. initialized, when given, tells the child the session is
// open (the bridge's own prime); it runs before the result is published, so no request waiting on
// this initialize reaches the child ahead of notifications/initialized.
func (c *initCache) initialize(
	ctx context.Context,
	m *message,
	call func(*message) (map[string]json.RawMessage, error),
	initialized func(),
) (answer map[string]json.RawMessage, cached bool, err error) {
	for {
		c.mu.Lock()
		if c.result != nil {
			result := c.result
			c.mu.Unlock()
			return map[string]json.RawMessage{
				"jsonrpc": json.RawMessage(`"2.0"`),
				"id":      m.id,
				"result":  result,
			}, true, nil
		}
		if wait := c.inflight; wait != nil {
			c.mu.Unlock()
			select {
			case <-wait:
				continue
			case <-ctx.Done():
				return nil, false, ctx.Err()
			}
		}
		done := make(chan struct{})
		c.inflight = done
		c.mu.Unlock()

		answer, err = call(m)
		ok := err == nil && answer["result"] != nil && answer["error"] == nil
		if ok && initialized != nil {
			initialized()
		}
		c.mu.Lock()
		if ok {
			c.result = answer["result"]
			c.initialized = c.initialized || initialized != nil
		}
		c.inflight = nil
		close(done)
		c.mu.Unlock()
		return answer, false, err
	}
}

// forwardInitialized says whether this notifications/initialized goes to the child: only the
// first after a successful initialize.
func (c *initCache) forwardInitialized() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.result == nil || c.initialized {
		return false
	}
	c.initialized = true
	return true
}

// ready says whether the child has answered an initialize.
func (c *initCache) ready() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.result != nil
}

// primeRequest is the bridge's own initialize: the newest protocol revision a stdio server of the
// 2025 era knows (the server answers with the one it speaks), no client capabilities (the bridge
// forwards no server-to-client request).
const primeRequest = `{"jsonrpc":"2.0","id":"agw-bridge-prime","method":"initialize","params":` +
	`{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"agw-bridge","version":"1"}}}`

const initializedNotification = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
