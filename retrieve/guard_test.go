package retrieve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/net/dns/dnsmessage"

	"github.com/factreasoner/factreasoner-go/internal/netguard"
)

// forwardProxy is a loopback HTTP proxy that answers requests for other
// hosts itself, as handler says; it counts the requests it got by target.
type forwardProxy struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string]int // by absolute URL
}

func newForwardProxy(t *testing.T, handler func(w http.ResponseWriter, r *http.Request)) *forwardProxy {
	p := &forwardProxy{hits: make(map[string]int)}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.hits[r.URL.String()]++
		p.mu.Unlock()
		if !r.URL.IsAbs() {
			t.Errorf("the proxy got a request that is not for a proxy: %s", r.RequestURI)
		}
		handler(w, r)
	}))
	t.Cleanup(p.Close)
	return p
}

func (p *forwardProxy) total() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, c := range p.hits {
		n += c
	}
	return n
}

// fakeDNS answers A queries for the names it knows on a loopback UDP port;
// resolver is a Resolver that asks it.
func fakeDNS(t *testing.T, names map[string]string) *net.Resolver {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	go func() {
		buf := make([]byte, 1500)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			var p dnsmessage.Parser
			h, err := p.Start(buf[:n])
			if err != nil {
				continue
			}
			q, err := p.Question()
			if err != nil {
				continue
			}
			b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true})
			b.EnableCompression()
			b.StartQuestions()
			b.Question(q)
			b.StartAnswers()
			ip, ok := names[strings.TrimSuffix(q.Name.String(), ".")]
			if ok && q.Type == dnsmessage.TypeA {
				a := netip.MustParseAddr(ip).As4()
				b.AResource(dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: 60}, dnsmessage.AResource{A: a})
			}
			msg, err := b.Finish()
			if err == nil {
				pc.WriteTo(msg, from)
			}
		}
	}()
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "udp", pc.LocalAddr().String())
	}}
}

// TestPageFetcherProxyGuard: with HTTP_PROXY set, the guard still decides:
// a redirect (through a loopback proxy) to a loopback page or to an
// address the proxy settings exempt (NO_PROXY) is refused at connect
// time, and a request through the proxy is refused before it is sent when
// its target is not public, given as an address or as a name that
// resolves to one. The proxy's own loopback address is allowed.
func TestPageFetcherProxyGuard(t *testing.T) {
	var secretHits atomic.Int64
	secret := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		secretHits.Add(1)
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "the secret page: Lanny Flaherty was born in 1942 (internal only)")
	}))
	defer secret.Close()
	proxy := newForwardProxy(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			http.NotFound(w, r)
		case "/to-loopback":
			http.Redirect(w, r, secret.URL+"/secret", http.StatusFound)
		case "/to-no-proxy":
			http.Redirect(w, r, "http://10.255.0.1:1/secret", http.StatusFound)
		case "/to-localhost":
			http.Redirect(w, r, "http://localhost:"+strings.Split(secret.Listener.Addr().String(), ":")[1]+"/secret", http.StatusFound)
		default:
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, "a public page about Lanny Flaherty, born in 1942")
		}
	})
	t.Setenv("HTTP_PROXY", proxy.URL)
	t.Setenv("http_proxy", proxy.URL)
	t.Setenv("NO_PROXY", "10.0.0.0/8")
	t.Setenv("no_proxy", "10.0.0.0/8")
	f := NewPageFetcher()
	f.Retry = fastRetry()
	f.Resolver = fakeDNS(t, map[string]string{"public.example": "93.184.215.14", "intranet.example": "10.1.2.3", "metadata.example": "169.254.169.254"})
	ctx := context.Background()

	// A public page through the proxy is read.
	text, err := f.Text(ctx, "http://93.184.215.14/page", "born")
	if err != nil || !strings.Contains(text, "public page") {
		t.Fatalf("public page through the proxy: %q, %v", text, err)
	}
	if text, err := f.Text(ctx, "http://public.example/page", "born"); err != nil || !strings.Contains(text, "public page") {
		t.Fatalf("public name through the proxy: %q, %v", text, err)
	}

	tests := []struct{ link, why string }{
		{"http://93.184.215.14/to-loopback", "a redirect to loopback, which is never proxied"},
		{"http://93.184.215.14/to-localhost", "a redirect to localhost"},
		{"http://93.184.215.14/to-no-proxy", "a redirect to an address in NO_PROXY"},
		{"http://169.254.169.254/latest/meta-data/", "a metadata address through the proxy"},
		{"http://100.100.100.200/latest/meta-data/", "a metadata address in CGNAT space through the proxy"},
		{"http://[64:ff9b::a9fe:a9fe]/latest/", "NAT64 of the metadata address through the proxy"},
		{"http://intranet.example/wiki", "a name resolving to a private address, through the proxy"},
		{"http://metadata.example/latest/", "a name resolving to link-local, through the proxy"},
		{secret.URL + "/secret", "loopback directly"},
	}
	for _, tt := range tests {
		before := proxy.total()
		_, err := f.Text(ctx, tt.link, "born")
		var pe *PageError
		if !errors.As(err, &pe) || pe.Reason != FailAddress {
			t.Errorf("%s (%s): error %v, want %q", tt.link, tt.why, err, FailAddress)
			continue
		}
		var ge *netguard.Error
		if !errors.As(err, &ge) {
			t.Errorf("%s: %v does not carry the address refused", tt.link, err)
		}
		if !strings.Contains(tt.link, "/to-") && proxy.total() != before {
			t.Errorf("%s (%s): the proxy got the request", tt.link, tt.why)
		}
	}
	if n := secretHits.Load(); n != 0 {
		t.Errorf("the loopback page was requested %d times", n)
	}

	// With AllowPrivate the same redirect is followed.
	f2 := NewPageFetcher()
	f2.Retry, f2.AllowPrivate = fastRetry(), true
	if text, err := f2.Text(ctx, "http://93.184.215.14/to-loopback", "born"); err != nil || !strings.Contains(text, "secret page") {
		t.Errorf("AllowPrivate: %q, %v", text, err)
	}
}

// TestPageFetcherDenyListGaps: the dialer's check refuses the addresses
// the first deny-list let through (issue 25, case 5), and still allows a
// public one.
func TestPageFetcherDenyListGaps(t *testing.T) {
	f := NewPageFetcher()
	for _, addr := range []string{
		"100.100.100.200:80", // Alibaba Cloud metadata
		"192.0.0.192:80",     // Oracle Cloud metadata
		"100.64.0.1:80",      // carrier-grade NAT
		"198.18.0.1:80",      // benchmarking
		"240.0.0.1:80",       // reserved
		"[64:ff9b::7f00:1]:80",
		"[64:ff9b::a9fe:a9fe]:80",
		"[2002:7f00:1::1]:80",
		"[2002:a9fe:a9fe::1]:80",
		"[2001:0:7f00:1::f7f7:f7f7]:80",
		"[::ffff:127.0.0.1]:80",
	} {
		if err := f.checkAddress("tcp", addr, nil); err == nil {
			t.Errorf("%s is allowed", addr)
		}
	}
	for _, addr := range []string{"93.184.215.14:443", "[2606:4700::1111]:443", "[64:ff9b::808:808]:80"} {
		if err := f.checkAddress("tcp", addr, nil); err != nil {
			t.Errorf("%s: %v", addr, err)
		}
	}
}
