// Newline-delimited framing of the child's stdout (MCP stdio transport): one JSON-RPC message per
// line. A line longer than the bound is skipped to its end rather than buffered, so a runaway child
// costs at most the bound in memory; the request it answered then runs into its deadline.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// maxLineBytes bounds one message from the child.
const maxLineBytes = 16 << 20

// readLines calls line for each line of r (without its newline, CR trimmed, blank lines skipped;
// the slice is reused afterwards, so line must copy what it keeps) and tooLong for each line over
// max. It returns nil at EOF.
func readLines(r io.Reader, max int, line func([]byte), tooLong func(size int)) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var buf []byte
	skipped := 0
	for {
		chunk, err := br.ReadSlice('\n')
		switch {
		case skipped > 0:
			skipped += len(chunk)
		case len(buf)+len(chunk) > max+1:
			skipped = len(buf) + len(chunk)
			buf = nil
		default:
			buf = append(buf, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if skipped > 0 {
			tooLong(skipped)
			skipped = 0
		} else if text := bytes.TrimRight(buf, "\r\n"); len(bytes.TrimSpace(text)) > 0 {
			line(text)
		}
		buf = buf[:0]
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
