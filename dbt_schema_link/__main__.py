import sys

from dbt_schema_link.cli import main

sys.exit(main())
