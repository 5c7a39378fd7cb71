package main

import (
	"bufio"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func newTestProxy(t *testing.T, upstream http.Handler) (*httptest.Server, *httptest.Server) {
	t.Helper()
	server := httptest.NewServer(upstream)
	u, err := parseUpstream(server.URL)
	if err != nil {
		t.Fatal(err)
	}
	a, err := loadAuth("", false, func(string) string { return testToken })
	if err != nil {
		t.Fatal(err)
	}
	front := httptest.NewServer(newProxy(u, a, slog.New(slog.NewTextHandler(io.Discard, nil))))
	t.Cleanup(func() {
		front.Close()
		server.Close()
	})
	return front, server
}

func TestProxyChecksTheTokenAndNeverPassesItOn(t *testing.T) {
	seen := make(chan http.Header, 4)
	front, _ := newTestProxy(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen <- r.Header.Clone()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"path":"`+r.URL.Path+`"}}`)
	}))
	for _, header := range []string{"", "Bearer wrong-token-but-long-enough", "Basic " + testToken} {
		req, _ := http.NewRequest(http.MethodPost, front.URL+"/mcp", strings.NewReader(`{}`))
		if header != "" {
			req.Header.Set("Authorization", header)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		_ = res.Body.Close()
		if res.StatusCode != 401 || len(body) != 0 {
			t.Errorf("%q: %d %q", header, res.StatusCode, body)
		}
	}
	if len(seen) != 0 {
		t.Fatalf("a refused request reached the server")
	}
	res, body := post(t, front.URL, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if res.StatusCode != 200 || !strings.Contains(body, `"/mcp"`) {
		t.Fatalf("through the proxy: %d %s", res.StatusCode, body)
	}
	if got := (<-seen).Get("Authorization"); got != "" {
		t.Errorf("the server saw Authorization %q", got)
	}
}

func TestProxyStreamsEventsAsTheServerWritesThem(t *testing.T) {
	release := make(chan struct{})
	front, _ := newTestProxy(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "event: message\ndata: first\n\n")
		w.(http.Flusher).Flush()
		<-release
		_, _ = io.WriteString(w, "event: message\ndata: second\n\n")
	}))
	req, _ := http.NewRequest(http.MethodPost, front.URL+"/mcp", strings.NewReader(`{}`))
	req.Header.Set("Authorization", "Bearer "+testToken)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	lines := bufio.NewReader(res.Body)
	// The first event arrives while the server still holds the second back.
	for want := range []string{"event: message\n", "data: first\n"} {
		line, err := lines.ReadString('\n')
		if err != nil || line != []string{"event: message\n", "data: first\n"}[want] {
			t.Fatalf("line %d: %q %v", want, line, err)
		}
	}
	close(release)
	rest, _ := io.ReadAll(lines)
	if !strings.Contains(string(rest), "data: second") {
		t.Errorf("rest of the stream: %q", rest)
	}
}

func TestProxyAcceptsOnlyALoopbackUpstreamAndSays502WhenItIsDown(t *testing.T) {
	for _, bad := range []string{"http://10.0.0.1:80", "https://127.0.0.1:8443", "http://127.0.0.1", "http://127.0.0.1:80/mcp", "http://u:p@127.0.0.1:80", "http://example.com:80"} {
		if _, err := parseUpstream(bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	for _, good := range []string{"http://127.0.0.1:8081", "http://localhost:9000", "http://[::1]:9000/"} {
		if _, err := parseUpstream(good); err != nil {
			t.Errorf("%s refused: %v", good, err)
		}
	}
	front, server := newTestProxy(t, http.NotFoundHandler())
	server.Close()
	res, _ := post(t, front.URL, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if res.StatusCode != http.StatusBadGateway {
		t.Errorf("server down: %d", res.StatusCode)
	}
	health, err := http.Get(front.URL + "/healthz")
	if err != nil || health.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("healthz with the server down: %v", health.StatusCode)
	}
}
