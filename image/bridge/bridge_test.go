package main

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeChild stands in for the server process: it reads the lines the bridge writes and answers
// through respond, which may write any lines back.
type fakeChild struct {
	mu       sync.Mutex
	received []*message
	stdout   *io.PipeWriter
}

func (f *fakeChild) write(line string) {
	_, _ = f.stdout.Write([]byte(line + "\n"))
}

func (f *fakeChild) seen() []*message {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*message(nil), f.received...)
}

const testToken = "0123456789abcdef-test-token"

// echoResult answers every request with its own (bridge) id and method.
func echoResult(f *fakeChild, m *message) {
	if m.kind == kindRequest {
		f.write(`{"jsonrpc":"2.0","id":` + string(m.id) + `,"result":{"method":"` + m.method + `"}}`)
	}
}

// newTestBridge is a bridge whose child was already initialized (by an earlier caller), so a test
// of relaying sees only its own lines; newFreshBridge's child has seen nothing yet.
func newTestBridge(t *testing.T, maxPending int, timeout time.Duration, respond func(*fakeChild, *message)) (*httptest.Server, *handler, *fakeChild) {
	t.Helper()
	server, h, f := newFreshBridge(t, maxPending, timeout, respond)
	h.init.result = json.RawMessage(`{}`)
	h.init.initialized = true
	return server, h, f
}

func newFreshBridge(t *testing.T, maxPending int, timeout time.Duration, respond func(*fakeChild, *message)) (*httptest.Server, *handler, *fakeChild) {
	t.Helper()
	stdinR, stdinW := io.Pipe()
	stdoutR, stdoutW := io.Pipe()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	f := &fakeChild{stdout: stdoutW}
	r := newRelay(stdinW, maxPending, log)
	h := &handler{auth: &auth{}, relay: r, init: &initCache{}, callTimeout: timeout, log: log}
	a, err := loadAuth("", false, func(string) string { return testToken })
	if err != nil {
		t.Fatal(err)
	}
	h.auth = a
	h.alive.Store(true)
	go func() {
		_ = readLines(stdinR, maxLineBytes, func(line []byte) {
			m, err := parseMessage(line)
			if err != nil {
				t.Errorf("child got a bad line: %s", line)
				return
			}
			f.mu.Lock()
			f.received = append(f.received, m)
			f.mu.Unlock()
			respond(f, m)
		}, func(int) {})
	}()
	go func() {
		_ = readLines(stdoutR, maxLineBytes, r.dispatch, func(int) {})
		h.alive.Store(false)
		r.close()
	}()
	server := httptest.NewServer(h)
	t.Cleanup(func() {
		server.Close()
		_ = stdoutW.Close()
		_ = stdinW.Close()
	})
	return server, h, f
}

func post(t *testing.T, url, body string, headers ...string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+testToken)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return res, string(data)
}

func field(t *testing.T, body, name string) string {
	t.Helper()
	var fields map[string]json.RawMessage
	if err := json.Unmarshal([]byte(body), &fields); err != nil {
		t.Fatalf("not JSON: %q", body)
	}
	return string(fields[name])
}

func TestCallerIdsAreRestoredByteForByteAndNeverCollide(t *testing.T) {
	server, _, child := newTestBridge(t, 16, 5*time.Second, echoResult)
	ids := []string{`1`, `"1"`, `12345678901234567890`, `"é\u00e9"`, `1`}
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, body := post(t, server.URL, `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/list"}`)
			if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/json" {
				t.Errorf("status %d %q", res.StatusCode, res.Header.Get("Content-Type"))
			}
			if got := field(t, body, "id"); got != id {
				t.Errorf("id %s came back as %s", id, got)
			}
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for _, m := range child.seen() {
		if seen[string(m.id)] {
			t.Errorf("the child saw id %s twice", m.id)
		}
		seen[string(m.id)] = true
	}
	if len(seen) != len(ids) {
		t.Errorf("the child saw %d requests, want %d", len(seen), len(ids))
	}
}

func TestInitializeIsCachedAndInitializedForwardedOnce(t *testing.T) {
	server, _, child := newFreshBridge(t, 16, 5*time.Second, func(f *fakeChild, m *message) {
		if m.method == "initialize" {
			f.write(`{"jsonrpc":"2.0","id":` + string(m.id) + `,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"x","version":"1"}}}`)
		}
	})
	init := `{"jsonrpc":"2.0","id":ID,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
	_, first := post(t, server.URL, strings.Replace(init, "ID", `"a"`, 1))
	_, second := post(t, server.URL, strings.Replace(init, "ID", `2`, 1))
	if field(t, first, "id") != `"a"` || field(t, second, "id") != `2` {
		t.Fatalf("ids: %s / %s", first, second)
	}
	if field(t, first, "result") != field(t, second, "result") {
		t.Errorf("cached result differs: %s vs %s", first, second)
	}
	for range 2 {
		if res, _ := post(t, server.URL, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); res.StatusCode != 202 {
			t.Errorf("initialized: %d", res.StatusCode)
		}
	}
	time.Sleep(50 * time.Millisecond)
	counts := map[string]int{}
	for _, m := range child.seen() {
		counts[m.method]++
	}
	if counts["initialize"] != 1 || counts["notifications/initialized"] != 1 {
		t.Errorf("the child saw %v", counts)
	}
}

func TestA2026RequestIsRelayedWithoutPriming(t *testing.T) {
	server, _, child := newFreshBridge(t, 16, 5*time.Second, echoResult)
	res, body := post(t, server.URL, `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`)
	if res.StatusCode != 200 || !strings.Contains(body, `"tools/list"`) {
		t.Fatalf("tools/list: %d %s", res.StatusCode, body)
	}
	if seen := child.seen(); len(seen) != 1 || seen[0].method != "tools/list" {
		t.Errorf("the child saw %d lines, want the 2026 tools/list alone", len(seen))
	}
}

func TestServerDiscoverIsRelayedAsIsWithoutInitialize(t *testing.T) {
	server, _, child := newFreshBridge(t, 16, 5*time.Second, func(f *fakeChild, m *message) {
		f.write(`{"jsonrpc":"2.0","id":` + string(m.id) + `,"error":{"code":-32601,"message":"Method not found"}}`)
	})
	res, body := post(t, server.URL, `{"jsonrpc":"2.0","id":"d","method":"server/discover","params":{}}`)
	if res.StatusCode != 200 || !strings.Contains(body, `-32601`) || field(t, body, "id") != `"d"` {
		t.Errorf("server/discover: %d %s", res.StatusCode, body)
	}
	if seen := child.seen(); len(seen) != 1 || seen[0].method != "server/discover" {
		t.Errorf("the child saw %d lines, want server/discover alone", len(seen))
	}
}

// A restarted pod, or a second replica behind the Service, gets a tools/call from a caller that
// initialized another process: the bridge initializes its child first, once, then relays.
func TestARequestToAnUninitializedChildPrimesItFirst(t *testing.T) {
	server, _, child := newFreshBridge(t, 16, 5*time.Second, func(f *fakeChild, m *message) {
		if m.kind != kindRequest {
			return
		}
		if m.method == "initialize" {
			f.write(`{"jsonrpc":"2.0","id":` + string(m.id) + `,"result":{"protocolVersion":"2025-06-18"}}`)
			return
		}
		f.write(`{"jsonrpc":"2.0","id":` + string(m.id) + `,"result":{"method":"` + m.method + `"}}`)
	})
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, body := post(t, server.URL, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x"}}`)
			if res.StatusCode != 200 || !strings.Contains(body, `"tools/call"`) || field(t, body, "id") != `7` {
				t.Errorf("tools/call: %d %s", res.StatusCode, body)
			}
		}()
	}
	wg.Wait()
	var methods []string
	for _, m := range child.seen() {
		methods = append(methods, m.method)
	}
	want := "initialize notifications/initialized tools/call tools/call tools/call tools/call"
	if got := strings.Join(methods, " "); got != want {
		t.Errorf("the child saw %q, want %q", got, want)
	}
	// A caller's own initialize afterwards is answered from the cache, not sent again.
	res, body := post(t, server.URL, `{"jsonrpc":"2.0","id":"i","method":"initialize","params":{}}`)
	if res.StatusCode != 200 || !strings.Contains(body, `2025-06-18`) || len(child.seen()) != 6 {
		t.Errorf("initialize after priming: %d %s, child saw %d", res.StatusCode, body, len(child.seen()))
	}
}

func TestServerRequestsAreAnsweredMethodNotFound(t *testing.T) {
	answered := make(chan *message, 1)
	server, _, _ := newTestBridge(t, 16, 5*time.Second, func(f *fakeChild, m *message) {
		switch m.kind {
		case kindRequest:
			f.write(`{"jsonrpc":"2.0","id":"srv-1","method":"sampling/createMessage","params":{}}`)
			f.write(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
			f.write(`not json at all`)
			f.write(`{"jsonrpc":"2.0","id":` + string(m.id) + `,"result":{}}`)
		case kindResponse:
			answered <- m
		}
	})
	if res, _ := post(t, server.URL, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}`); res.StatusCode != 200 {
		t.Fatalf("status %d", res.StatusCode)
	}
	select {
	case m := <-answered:
		if string(m.id) != `"srv-1"` || !strings.Contains(string(m.fields["error"]), "-32601") {
			t.Errorf("server request answered with %s", encodeFields(m.fields))
		}
	case <-time.After(2 * time.Second):
		t.Fatal("the server request was never answered")
	}
}

func TestNotificationsAndStrayResponsesAre202(t *testing.T) {
	server, _, child := newTestBridge(t, 16, 5*time.Second, echoResult)
	if res, _ := post(t, server.URL, `{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`); res.StatusCode != 202 {
		t.Errorf("notification: %d", res.StatusCode)
	}
	if res, _ := post(t, server.URL, `{"jsonrpc":"2.0","id":4,"result":{}}`); res.StatusCode != 202 {
		t.Errorf("response: %d", res.StatusCode)
	}
	if res, _ := post(t, server.URL, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`); res.StatusCode != 202 {
		t.Errorf("cancelled: %d", res.StatusCode)
	}
	time.Sleep(50 * time.Millisecond)
	if seen := child.seen(); len(seen) != 1 || seen[0].method != "notifications/roots/list_changed" {
		t.Errorf("the child saw %d messages", len(seen))
	}
}

func TestBoundsRefuseOversizedBatchedAndMalformedBodies(t *testing.T) {
	server, _, _ := newTestBridge(t, 16, 5*time.Second, echoResult)
	huge := `{"jsonrpc":"2.0","id":1,"method":"x","params":{"p":"` + strings.Repeat("a", maxBodyBytes) + `"}}`
	cases := map[string]int{huge: 413, `[{"jsonrpc":"2.0","id":1,"method":"x"}]`: 400, `{nope`: 400, `{"id":1,"method":"x"}`: 400, `{"jsonrpc":"2.0","id":null,"method":"x"}`: 400}
	for body, want := range cases {
		if res, _ := post(t, server.URL, body); res.StatusCode != want {
			t.Errorf("%.40s: %d, want %d", body, res.StatusCode, want)
		}
	}
}

func TestTooManyPendingIs503AndTheDeadlineIs504(t *testing.T) {
	server, h, child := newTestBridge(t, 1, 300*time.Millisecond, func(*fakeChild, *message) {})
	done := make(chan int)
	go func() {
		res, _ := post(t, server.URL, `{"jsonrpc":"2.0","id":1,"method":"slow"}`)
		done <- res.StatusCode
	}()
	for h.relay.pendingCount() == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	res, _ := post(t, server.URL, `{"jsonrpc":"2.0","id":2,"method":"more"}`)
	if res.StatusCode != 503 || res.Header.Get("Retry-After") == "" {
		t.Errorf("over the cap: %d", res.StatusCode)
	}
	if status := <-done; status != 504 {
		t.Errorf("past the deadline: %d", status)
	}
	if n := h.relay.pendingCount(); n != 0 {
		t.Errorf("%d pending after the deadline", n)
	}
	time.Sleep(50 * time.Millisecond)
	seen := child.seen()
	if last := seen[len(seen)-1]; last.method != "notifications/cancelled" {
		t.Errorf("the child was not told to cancel: %s", last.method)
	}
}

func TestAChildThatExitsAnswersPendingCalls502(t *testing.T) {
	server, h, child := newTestBridge(t, 16, 5*time.Second, func(f *fakeChild, m *message) {
		if m.method == "die" {
			_ = f.stdout.Close()
		}
	})
	slow := make(chan int)
	go func() {
		res, _ := post(t, server.URL, `{"jsonrpc":"2.0","id":1,"method":"slow"}`)
		slow <- res.StatusCode
	}()
	for h.relay.pendingCount() == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	_, _ = post(t, server.URL, `{"jsonrpc":"2.0","id":2,"method":"die"}`)
	if status := <-slow; status != 502 {
		t.Errorf("pending call: %d", status)
	}
	if res, _ := post(t, server.URL, `{"jsonrpc":"2.0","id":3,"method":"later"}`); res.StatusCode != 502 {
		t.Errorf("later call: %d", res.StatusCode)
	}
	res, err := http.Get(server.URL + "/healthz")
	if err != nil || res.StatusCode != 503 {
		t.Errorf("healthz after exit: %v", res.StatusCode)
	}
	_ = child
}

func TestProgressIsStreamedWithTheCallersToken(t *testing.T) {
	server, _, _ := newTestBridge(t, 16, 5*time.Second, func(f *fakeChild, m *message) {
		token, ok := m.progressToken()
		if !ok || string(token) == `"mine"` {
			f.write(`{"jsonrpc":"2.0","id":` + string(m.id) + `,"error":{"code":-1,"message":"token not rewritten"}}`)
			return
		}
		f.write(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":` + string(token) + `,"progress":1}}`)
		f.write(`{"jsonrpc":"2.0","id":` + string(m.id) + `,"result":{}}`)
	})
	res, body := post(t, server.URL, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"_meta":{"progressToken":"mine"}}}`,
		"Accept", "application/json, text/event-stream")
	if res.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("not a stream: %s %s", res.Header.Get("Content-Type"), body)
	}
	want := "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progress\":1,\"progressToken\":\"mine\"}}\n\n" +
		"event: message\ndata: {\"id\":5,\"jsonrpc\":\"2.0\",\"result\":{}}\n\n"
	if body != want {
		t.Errorf("stream:\n%s", body)
	}
}

func TestAuthGuardsMcpButNotProbes(t *testing.T) {
	server, _, _ := newTestBridge(t, 16, 5*time.Second, echoResult)
	for _, header := range []string{"", "Bearer wrong-token-of-some-length", "Basic " + testToken, "bearer " + testToken + "x"} {
		req, _ := http.NewRequest(http.MethodPost, server.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"x"}`))
		if header != "" {
			req.Header.Set("Authorization", header)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 401 || len(data) != 0 {
			t.Errorf("%q: %d %q", header, res.StatusCode, data)
		}
	}
	if res, _ := post(t, server.URL, `{"jsonrpc":"2.0","id":1,"method":"x"}`, "Authorization", "bearer "+testToken); res.StatusCode != 200 {
		t.Errorf("lower-case scheme: %d", res.StatusCode)
	}
	for _, path := range []string{"/healthz", "/readyz"} {
		if res, err := http.Get(server.URL + path); err != nil || res.StatusCode != 200 {
			t.Errorf("%s: %v", path, err)
		}
	}
	req, _ := http.NewRequest(http.MethodGet, server.URL+"/mcp", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != 405 {
		t.Errorf("GET /mcp: %v", res.StatusCode)
	}
}
