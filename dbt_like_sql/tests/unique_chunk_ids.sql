select chunk_id, count(*) as n from {{ ref('passages') }} group by chunk_id having count(*) > 1
