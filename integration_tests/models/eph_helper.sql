{{ config(materialized='ephemeral') }}

select 1 as one
