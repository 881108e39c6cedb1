import sys

from turbofno.cli import main

sys.exit(main())
