// Package nettest holds what the tests of the HTTP clients share: a
// server that accepts connections and never answers.
package nettest

import (
	"net"
	"testing"
)

// Silent listens on loopback and accepts connections without ever
// answering, as a wrong port or a hung server does, until the test ends.
// It returns the address, host:port.
func Silent(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()
	t.Cleanup(func() {
		l.Close()
		<-done
	})
	return l.Addr().String()
}
