// agw-bridge serves an unmodified stdio MCP server over Streamable HTTP (issue 40): it runs the
// server as its child and relays one JSON-RPC message per POST. Static, stdlib only, so an init
// container can copy it into any image (distroless, musl, glibc). This file is the composition
// root: config, child, relay, HTTP server, and the order things stop in.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:], os.Getenv, os.Environ(), os.Stderr))
}

func run(args []string, getenv func(string) string, environ []string, stderr io.Writer) int {
	cfg, err := parseConfig(args, stderr)
	if err != nil {
		if !errors.Is(err, flagHelp) {
			fmt.Fprintln(stderr, "agw-bridge:", err)
		}
		return 2
	}
	if cfg.installTo != "" {
		if err := install(cfg.installTo); err != nil {
			fmt.Fprintln(stderr, "agw-bridge:", err)
			return 1
		}
		return 0
	}
	log := slog.New(slog.NewJSONHandler(stderr, nil)).With("component", "agw-bridge")
	a, err := loadAuth(cfg.tokenFile, cfg.insecureNoAuth, getenv)
	if err != nil {
		log.Error("refusing to start", "error", err.Error())
		return 2
	}
	if a.open {
		log.Warn("serving without authentication (--insecure-no-auth)")
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(cfg.host, strconv.Itoa(cfg.port)))
	if err != nil {
		log.Error("cannot listen", "error", err.Error())
		return 1
	}
	if cfg.upstream != "" {
		upstream, _ := parseUpstream(cfg.upstream) // checked by parseConfig
		log.Info("started", "address", ln.Addr().String(), "mode", "proxy")
		return serveProxy(cfg, newProxy(upstream, a, log), ln)
	}
	c, err := startChild(cfg.command, childEnv(environ), stderr)
	if err != nil {
		_ = ln.Close()
		log.Error("cannot start the server", "command", cfg.command[0], "error", err.Error())
		return 1
	}
	log.Info("started", "address", ln.Addr().String(), "command", cfg.command[0], "pid", c.pid())
	return serve(cfg, log, a, ln, c)
}

func serve(cfg config, log *slog.Logger, a *auth, ln net.Listener, c *child) int {
	r := newRelay(c.stdin, cfg.maxPending, log)
	h := &handler{auth: a, relay: r, init: &initCache{}, callTimeout: cfg.callTimeout, log: log}
	h.alive.Store(true)

	exited := make(chan struct{})
	exitCode := 0
	go func() {
		err := readLines(c.stdout, maxLineBytes, r.dispatch, func(size int) {
			log.Warn("child wrote a line over 16 MiB; dropped", "bytes", size)
		})
		if err != nil {
			log.Warn("reading the child's stdout failed", "error", err.Error())
		}
		exitCode = c.wait()
		h.alive.Store(false)
		r.close()
		close(exited)
	}()

	server := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 120 * time.Second}
	served := make(chan error, 1)
	go func() { served <- server.Serve(ln) }()

	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	defer signal.Stop(signals)

	select {
	case <-exited:
		// Pending calls were answered 502 by r.close; let those answers go out, then exit
		// non-zero so Kubernetes restarts the container (a stdio server has no reconnect).
		log.Error("the server process exited", "code", exitCode)
		shutdown(server, 2*time.Second)
		return 1
	case sig := <-signals:
		log.Info("stopping", "signal", sig.String())
		h.draining.Store(true)
		if !drain(cfg.drainDelay, exited) {
			log.Error("the server process exited while draining", "code", exitCode)
			shutdown(server, 2*time.Second)
			return 1
		}
		shutdown(server, cfg.shutdownGrace)
		c.terminate(cfg.killGrace, exited)
		<-exited
		return 0
	case err := <-served:
		log.Error("HTTP server failed", "error", err.Error())
		c.terminate(cfg.killGrace, exited)
		<-exited
		return 1
	}
}

// serveProxy serves proxy mode until SIGTERM/SIGINT, then drains like the stdio mode.
func serveProxy(cfg config, p *proxy, ln net.Listener) int {
	server := &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 120 * time.Second}
	served := make(chan error, 1)
	go func() { served <- server.Serve(ln) }()
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	defer signal.Stop(signals)
	select {
	case sig := <-signals:
		p.log.Info("stopping", "signal", sig.String())
		p.draining.Store(true)
		drain(cfg.drainDelay, nil)
		shutdown(server, cfg.shutdownGrace)
		return 0
	case err := <-served:
		p.log.Error("HTTP server failed", "error", err.Error())
		return 1
	}
}

// drain keeps serving for delay after SIGTERM while /readyz says 503: a deleted pod's address leaves
// the Service's endpoints (and every node's forwarding rules) a moment after the signal, and a
// listener closed at once would refuse the requests still sent to it meanwhile. False when the
// server process exited during the delay.
func drain(delay time.Duration, exited <-chan struct{}) bool {
	if delay <= 0 {
		return true
	}
	timer := time.NewTimer(delay)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-exited:
		return false
	}
}

// endKeepAliveWhileDraining: from SIGTERM on every answer says Connection: close and the server
// closes its connection after it, so callers dial again (reaching a pod that stays) long before the
// listener closes. Idle connections are not closed early: a caller may be sending on one at that
// very moment, and that request would be lost; under load each is used, and so closed cleanly,
// within moments, and only ones left idle for the whole drain delay are closed at shutdown.
func endKeepAliveWhileDraining(w http.ResponseWriter, draining bool) {
	if draining {
		w.Header().Set("Connection", "close")
	}
}

// shutdown stops accepting and waits up to grace for in-flight requests.
func shutdown(server *http.Server, grace time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if server.Shutdown(ctx) != nil {
		_ = server.Close()
	}
}
