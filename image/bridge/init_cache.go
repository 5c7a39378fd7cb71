// The initialize cache: a stdio server has one session, but several HTTP callers (gateway replicas,
// a gateway that restarted) each open one. The first initialize goes to the child and its result
// is kept; every later initialize is answered from it with the caller's own id, and every
// notifications/initialized after the first is swallowed. So the bridge issues no Mcp-Session-Id
// and any caller can send any request at any time.
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
// cached; the next caller tries again.
func (c *initCache) initialize(
	ctx context.Context,
	m *message,
	call func(*message) (map[string]json.RawMessage, error),
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
		c.mu.Lock()
		if err == nil && answer["result"] != nil && answer["error"] == nil {
			c.result = answer["result"]
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
