from pellucid.cli import main

raise SystemExit(main())
