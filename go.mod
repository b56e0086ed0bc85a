module github.com/factreasoner/factreasoner-go

go 1.26.8

require (
	github.com/mattn/go-sqlite3 v1.14.53
	github.com/urfave/cli/v2 v2.27.7
	gonum.org/v1/gonum v0.17.0
)

require (
	github.com/cpuguy83/go-md2man/v2 v2.0.7 // indirect
	github.com/russross/blackfriday/v2 v2.1.0 // indirect
	github.com/xrash/smetrics v0.0.0-20240521201337-686a1a2994c1 // indirect
)
