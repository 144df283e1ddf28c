"""dbt-schema-link: discover how a dbt project's tables join, write the links back as dbt tests,
and give text-to-SQL agents the models, columns and join paths a question needs."""

__version__ = "0.1.0"
