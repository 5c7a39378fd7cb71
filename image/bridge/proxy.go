// Proxy mode (`--upstream http://127.0.0.1:PORT`): an MCP server image that serves HTTP itself gets
// the bridge as a sidecar in its pod, in front of it, so the gateways' token is checked for it too.
// Without it, a Service of the tenant's namespace could be repointed (type ExternalName, a CNAME to
// another tenant's Service) and the gateways, which the other workload's NetworkPolicy lets in,
// would call that workload for the wrong tenant. The token is taken off the request before it goes
// on: the server never sees it. Only a loopback upstream is accepted, so the bridge is never an
// open proxy.
package main

import (
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync/atomic"
	"time"
)

type proxy struct {
	auth     *auth
	upstream *url.URL
	relay    *httputil.ReverseProxy
	log      *slog.Logger
	draining atomic.Bool
}

// parseUpstream accepts only http to a loopback address of this pod, with no path, query or user.
func parseUpstream(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" || u.Port() == "" || u.User != nil ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return nil, errors.New("--upstream must be http://127.0.0.1:PORT (or localhost, [::1]), nothing after the port")
	}
	host := u.Hostname()
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, errors.New("--upstream must be a loopback address: the server in the same pod")
	}
	u.Path = ""
	return u, nil
}

func newProxy(upstream *url.URL, a *auth, log *slog.Logger) *proxy {
	p := &proxy{auth: a, upstream: upstream, log: log}
	p.relay = &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(upstream)
			r.Out.Host = r.In.Host
			r.Out.Header.Del("Authorization")
		},
		// Server-sent events go out as the server writes them.
		FlushInterval: -1,
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			log.Warn("the server did not answer", "error", err.Error())
			w.WriteHeader(http.StatusBadGateway)
		},
	}
	return p
}

func (p *proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	endKeepAliveWhileDraining(w, p.draining.Load())
	switch r.URL.Path {
	case "/healthz":
		probe(w, p.reachable())
		return
	case "/readyz":
		probe(w, !p.draining.Load() && p.reachable())
		return
	}
	started := time.Now()
	if !p.auth.allows(r) {
		w.WriteHeader(http.StatusUnauthorized)
		p.log.Info("proxy", "status", http.StatusUnauthorized)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxBodyBytes)
	status := &statusWriter{ResponseWriter: w, status: http.StatusOK}
	p.relay.ServeHTTP(status, r)
	p.log.Info("proxy", "method", r.Method, "status", status.status, "ms", time.Since(started).Milliseconds())
}

// reachable says whether the server accepts a connection on its port.
func (p *proxy) reachable() bool {
	conn, err := net.DialTimeout("tcp", p.upstream.Host, time.Second)
	if err != nil {
		return false
	}
	_ = conn.Close()
	return true
}

func probe(w http.ResponseWriter, ok bool) {
	if !ok {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	_, _ = w.Write([]byte("ok\n"))
}

// statusWriter remembers the status for the log line; Flush passes through for event streams.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (s *statusWriter) WriteHeader(code int) {
	s.status = code
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }
