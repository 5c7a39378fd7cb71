// Command-line flags and the environment, read once into a config: the bridge's own flags, then
// `--`, then the server's command and arguments, run as they are (no shell).
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"time"
)

// flagHelp is -h: usage is printed already, nothing else to say.
var flagHelp = flag.ErrHelp

type config struct {
	host           string
	port           int
	tokenFile      string
	insecureNoAuth bool
	callTimeout    time.Duration
	maxPending     int
	shutdownGrace  time.Duration
	drainDelay     time.Duration
	killGrace      time.Duration
	command        []string
	// upstream, when set, is proxy mode: an HTTP server in the same pod instead of a child.
	upstream string
	// installTo, when set, copies the binary there and exits (the init container's job).
	installTo string
}

func parseConfig(args []string, usage io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("agw-bridge", flag.ContinueOnError)
	fs.SetOutput(usage)
	fs.StringVar(&c.host, "host", "", "address to listen on (default: all)")
	fs.IntVar(&c.port, "port", 8080, "port to listen on")
	fs.StringVar(&c.tokenFile, "token-file", "", "file holding the bearer token (else $"+tokenEnv+")")
	fs.BoolVar(&c.insecureNoAuth, "insecure-no-auth", false, "serve without a token (local tests only)")
	fs.DurationVar(&c.callTimeout, "call-timeout", 300*time.Second, "deadline of one request at the server")
	fs.IntVar(&c.maxPending, "max-pending", 256, "requests waiting for the server at once (more: 503)")
	fs.DurationVar(&c.drainDelay, "drain-delay", 5*time.Second, "on SIGTERM, how long to keep serving new requests (readyz 503) before closing the listener")
	fs.DurationVar(&c.shutdownGrace, "shutdown-grace", 20*time.Second, "on SIGTERM, after the drain delay, how long in-flight requests may finish")
	fs.DurationVar(&c.killGrace, "kill-grace", 5*time.Second, "after SIGTERM to the server, how long before SIGKILL")
	fs.StringVar(&c.installTo, "install", "", "copy this binary to the given path and exit (init containers)")
	fs.StringVar(&c.upstream, "upstream", "", "proxy mode: check the token, then pass requests to this http://127.0.0.1:PORT server")
	fs.Usage = func() {
		fmt.Fprintln(usage, "usage: agw-bridge [flags] -- COMMAND [ARGS...]\n       agw-bridge [flags] --upstream http://127.0.0.1:PORT\n       agw-bridge --install PATH")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return c, flagHelp
		}
		return c, err
	}
	c.command = fs.Args()
	switch {
	case c.installTo != "":
		return c, nil
	case c.upstream != "" && len(c.command) > 0:
		return c, errors.New("give either --upstream or a server command, not both")
	case c.upstream != "":
		if _, err := parseUpstream(c.upstream); err != nil {
			return c, err
		}
	case len(c.command) == 0:
		return c, errors.New("no server command: agw-bridge [flags] -- COMMAND [ARGS...]")
	case c.port < 0 || c.port > 65535:
		return c, errors.New("--port must be 0..65535")
	case c.callTimeout <= 0:
		return c, errors.New("--call-timeout must be positive")
	case c.maxPending < 1:
		return c, errors.New("--max-pending must be at least 1")
	case c.shutdownGrace < 0 || c.killGrace < 0 || c.drainDelay < 0:
		return c, errors.New("grace periods must not be negative")
	}
	return c, nil
}
